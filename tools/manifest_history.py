"""Carry a model folder's history into the manifest of the model that replaces it.

``rt-eeg train`` and ``rt-eeg ensemble`` write a fresh ``manifest.json`` that knows only how
its own model was made. When a new model replaces ``models/default``, the record of how it was
chosen lives in the old manifest: every ``candidates*`` section (the rounds and amendments of
``tools/results/xgen_protocol.md``), the predecessor it replaced, and the old model's own held-out
figures. This copies them into the new manifest:

- every ``candidates*`` section of the old manifest, unchanged;
- ``previous_default``: the old model's name, weights hash, command line, operating point and
  held-out figures (``heldout``);
- ``earlier_defaults``: the old manifest's own ``previous_default`` and ``earlier_defaults``,
  newest first;
- ``--section NAME=JSON``: a new section (e.g. the amendment that chose the new model).

A rebuild of the same weights (equal ``weights_sha256``) keeps the old record as it is: the
candidate sections, ``previous_default`` and ``earlier_defaults`` unchanged. So a round that
replaced nothing is recorded by naming the shipped manifest as both ``--old`` and ``--new``
with its ``--section`` (no ``--previous-name`` needed): every other key stays as it was.

The new manifest is written atomically; the old one is only read. Run it **before** the old
folder is overwritten (or on a copy of its manifest).

Usage::

    python tools/manifest_history.py --old models/default/manifest.json \\
        --new /work/sim/recipe/e15x6_ship/manifest.json --previous-name "K15s3 (2026-11-26)" \\
        --section candidates_xgen_20261126_amendments_31_32=/tmp/amend31_32.json
    python tools/manifest_history.py --old models/default/manifest.json \\
        --new models/default/manifest.json --section candidates_NAME=/tmp/round.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402

#: What ``previous_default`` keeps of the replaced model's manifest.
PREVIOUS_KEYS = ("weights_sha256", "command_line", "ensemble", "heldout")


def _read(path: str, what: str) -> dict:
    try:
        doc = json.loads(Path(path).read_text("utf-8"))
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
        return doc
    except (OSError, ValueError) as err:
        raise SystemExit(f"manifest_history: {path}: not a readable {what} ({err})") from None


def carry(old: dict, new: dict, previous_name: str, old_postprocess: dict | None = None,
          sections: dict | None = None) -> dict:  # fmt: skip
    """The new manifest with the old one's history (see the module docstring).

    Parameters
    ----------
    old, new : dict
        The replaced and the replacing model's manifests.
    previous_name : str
        How the replaced model is named in ``previous_default``.
    old_postprocess : dict, optional
        The replaced model's operating point (its ``postprocess.toml``).
    sections : dict, optional
        New sections, ``{name: content}``; a name already present is refused.
    """
    out = dict(new)
    for k, v in old.items():
        if k.startswith("candidates"):
            out[k] = v
    if same_weights(old, new):
        # a rebuild of the same model: its record stays as it was, it is not its own predecessor
        out |= {k: old[k] for k in ("previous_default", "earlier_defaults") if k in old}
        return _add(out, sections)
    prev = {"name": previous_name} | {k: old[k] for k in PREVIOUS_KEYS if k in old}
    if old_postprocess is not None:
        prev["postprocess"] = old_postprocess
    earlier = [old["previous_default"]] if "previous_default" in old else []
    earlier += old.get("earlier_defaults", [])
    out["previous_default"] = prev
    if earlier:
        out["earlier_defaults"] = earlier
    return _add(out, sections)


def same_weights(old: dict, new: dict) -> bool:
    """Whether the two manifests record the same trained weights (a rebuild, not a successor)."""
    return bool(old.get("weights_sha256")) and old.get("weights_sha256") == new.get("weights_sha256")


def _add(out: dict, sections: dict | None) -> dict:
    for name, content in (sections or {}).items():
        if name in out:
            raise SystemExit(f"manifest_history: section {name!r} exists already")
        out[name] = content
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", required=True, help="the replaced model's manifest.json")
    p.add_argument("--new", required=True, help="the new model's manifest.json (rewritten)")
    p.add_argument("--previous-name",
                   help="how the replaced model is named (needed when the weights differ)")
    p.add_argument("--old-postprocess", help="the replaced model's postprocess.toml")
    p.add_argument("--section", action="append", default=[], help="NAME=JSON_FILE")
    args = p.parse_args(argv)
    old = _read(args.old, "manifest")
    new = _read(args.new, "manifest")
    sections = {}
    for s in args.section:
        name, sep, path = s.partition("=")
        if not (sep and name and path):
            raise SystemExit(f"manifest_history: --section {s!r}: expected NAME=JSON_FILE")
        sections[name] = _read(path, "JSON section")
    same = same_weights(old, new)
    if not same and not args.previous_name:
        raise SystemExit(f"manifest_history: {args.new} replaces {args.old} (other weights): "
                         "--previous-name is needed")  # fmt: skip
    post = None
    if args.old_postprocess:
        from rt_eeg.config import read_postprocess_toml

        post = read_postprocess_toml(args.old_postprocess).to_dict()
    write_json_atomic(args.new, carry(old, new, args.previous_name or "", post, sections))
    if same:
        print(f"manifest_history: {args.new}: same weights as {args.old}, record kept"
              + (f"; added {', '.join(sections)}" if sections else ""))  # fmt: skip
    else:
        print(f"manifest_history: {args.new}: history of {args.old} carried "
              f"(previous_default: {args.previous_name})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
