"""A model folder's files: their sha256 in the manifest, verification, the LiteRT twin.

A model folder holds ``model.keras``, ``features.toml``, ``manifest.json`` and (saved since
LiteRT became the CPU runtime) ``model.tflite``. ``manifest.json`` records the sha256 of every
file the decoder reads (``files_sha256``); loading refuses a folder whose files differ, and
one with a ``model.tflite`` the manifest does not vouch for. The manifest's ``litert``
section says which ``model.keras`` the ``.tflite`` was converted from, so a retrained model
never runs with a stale twin.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from rt_eeg.errors import RtEegError
from rt_eeg.runtime import LITE_BATCH, LITE_FILE

MODEL_FILE = "model.keras"
FEATURES_FILE = "features.toml"
MANIFEST_FILE = "manifest.json"
#: Files whose sha256 the manifest records (``files_sha256``) and loading verifies.
HASHED_FILES = (MODEL_FILE, FEATURES_FILE)
#: Hashed too when present (a folder saved before LiteRT has none; it runs on TensorFlow).
OPTIONAL_HASHED_FILES = (LITE_FILE,)
#: How to add ``model.tflite`` to an existing folder (recorded in its manifest).
EXPORT_COMMAND = "python tools/export_tflite.py --model DIR"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def model_file_hashes(model_dir: str | os.PathLike) -> dict[str, str]:
    """sha256 (hex) of ``model.keras``, ``features.toml`` and (if present) ``model.tflite``."""
    model_dir = Path(model_dir)
    out = {name: _sha256(model_dir / name) for name in HASHED_FILES}
    for name in OPTIONAL_HASHED_FILES:
        if (model_dir / name).is_file():
            out[name] = _sha256(model_dir / name)
    return out


def rehash_model(model_dir: str | os.PathLike) -> None:
    """Record the current ``files_sha256`` in the manifest after a deliberate edit of a
    model folder (tests, tools); loading refuses edited files otherwise."""
    from rt_eeg.io.atomic import write_json_atomic

    path = Path(model_dir) / MANIFEST_FILE
    manifest = json.loads(path.read_text("utf-8"))
    manifest["files_sha256"] = model_file_hashes(model_dir)
    write_json_atomic(path, manifest)


def verify_model_files(model_dir: str | os.PathLike) -> dict | None:
    """Refuse a model folder whose files differ from the hashes in its manifest.

    A model saved before ``files_sha256`` existed loads with a logged warning (its
    ``model.tflite``, if any, is then not used: nothing vouches for it). A manifest that is
    not valid JSON is left to the caller's manifest check.

    Returns
    -------
    dict or None
        The manifest as parsed for the check (None when it could not be read as a JSON
        object), so that a caller uses the very manifest whose hashes were verified.
    """
    model_dir = Path(model_dir)
    try:
        manifest = json.loads((model_dir / MANIFEST_FILE).read_text("utf-8"))
        expected = manifest.get("files_sha256")
    except (OSError, ValueError, AttributeError):
        return None
    if expected is None:
        logging.getLogger("rt_eeg.decoder").warning(
            "%s: manifest predates file hashes (files_sha256); model files not verified",
            model_dir / MANIFEST_FILE,
        )
        return manifest
    allowed = set(HASHED_FILES) | set(OPTIONAL_HASHED_FILES)
    if not isinstance(expected, dict) or not set(HASHED_FILES) <= set(expected) <= allowed:
        raise RtEegError(
            f"files_sha256 must map {', '.join(HASHED_FILES)} (and optionally "
            f"{', '.join(OPTIONAL_HASHED_FILES)}) to sha256 hex digests",
            model_dir / MANIFEST_FILE,
        )
    for name in OPTIONAL_HASHED_FILES:
        if (model_dir / name).is_file() and name not in expected:
            raise RtEegError(
                f"not listed in manifest.json files_sha256: refusing to load (add it with "
                f"{EXPORT_COMMAND})",
                model_dir / name,
            )
    for name in sorted(expected):
        if not (model_dir / name).is_file():
            raise RtEegError(f"model folder has no {name}, which manifest.json lists", model_dir)
        actual = _sha256(model_dir / name)
        if actual != expected[name]:
            raise RtEegError(
                f"sha256 {actual[:12]}... does not match manifest.json "
                f"({str(expected[name])[:12]}...): modified or replaced, refusing to load",
                model_dir / name,
            )
    return manifest


def lite_model_path(model_dir: str | os.PathLike, manifest: dict) -> Path | None:
    """The folder's verified ``model.tflite``, or None when it has none (or its manifest
    predates file hashes, so nothing vouches for it).

    Call after :func:`verify_model_files`. Refuses a ``.tflite`` converted from another
    ``model.keras`` than the one beside it.
    """
    model_dir = Path(model_dir)
    path = model_dir / LITE_FILE
    hashes = manifest.get("files_sha256")
    if not path.is_file() or not isinstance(hashes, dict) or LITE_FILE not in hashes:
        return None
    source = (manifest.get("litert") or {}).get("converted_from_sha256")
    if source != hashes.get(MODEL_FILE):
        raise RtEegError(
            f"was not converted from this folder's {MODEL_FILE} (manifest litert."
            f"converted_from_sha256 {str(source)[:12]}...); re-export it with {EXPORT_COMMAND}",
            path,
        )
    return path


def lite_manifest_section(model_dir: str | os.PathLike, batch: int = LITE_BATCH) -> dict:
    """The manifest's ``litert`` section for the ``model.tflite`` just written."""
    import importlib.metadata as md

    def version(dist: str) -> str | None:
        try:
            return md.version(dist)
        except md.PackageNotFoundError:
            return None

    return {
        "file": LITE_FILE,
        "batch": int(batch),
        "converted_from_sha256": _sha256(Path(model_dir) / MODEL_FILE),
        "converter": {"tensorflow": version("tensorflow")},
        "runtime": {"ai-edge-litert": version("ai-edge-litert")},
        "how": "Keras model with its weights frozen as constants, fixed batch; "
        "rt_eeg.runtime.export_tflite",
        "command": EXPORT_COMMAND,
        "use": "CPU inference (rt_eeg.runtime.LiteRunner); TensorFlow serves the GPU",
    }


def add_tflite(model_dir: str | os.PathLike, batch: int = LITE_BATCH) -> Path:
    """Convert a verified folder's ``model.keras`` to ``model.tflite``, record the
    ``litert`` section and the new hashes in its manifest (needs TensorFlow).

    Returns the path of the ``.tflite`` written.
    """
    from rt_eeg.io.atomic import write_json_atomic
    from rt_eeg.runtime import export_tflite, import_tensorflow

    model_dir = Path(model_dir)
    verify_model_files(model_dir)
    import_tensorflow()
    import keras

    model = keras.saving.load_model(model_dir / MODEL_FILE, compile=False, safe_mode=True)
    export_tflite(model, model_dir / LITE_FILE, batch)
    path = model_dir / MANIFEST_FILE
    manifest = json.loads(path.read_text("utf-8"))
    manifest["litert"] = lite_manifest_section(model_dir, batch)
    manifest["files_sha256"] = model_file_hashes(model_dir)
    write_json_atomic(path, manifest)
    return model_dir / LITE_FILE
