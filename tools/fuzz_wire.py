"""Longer fuzz of the wire decoder (``messages.decode`` + an input's ``Expect``) than the test
suite runs: random frames, mutated valid messages (detection data, ward status, alarm) and
random headers for ``--seconds``.
Every case must end in a message or a MessageError, each within 0.5 s. Writes JSON.

Usage: python tools/fuzz_wire.py [--seconds 60] [--seed 0] [--out tools/results/fuzz_wire.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rt_eeg.io.atomic import write_json_atomic  # noqa: E402
from rt_eeg.pipeline.messages import Expect, MessageError, decode, encode  # noqa: E402

VALUES = [None, True, 0, -1, 1, 2**63, 2**64 + 1, 1e308, -0.0, 0.5, "", "x", [], {}, [1],
          {"a": 1}, "float32", "data", "eos", "source", [2**62, 4], [25, 22], [0, 2**61]]  # fmt: skip
KEYS = ["v", "kind", "seq", "stream", "incarnation", "t0", "t_emit", "shape", "dtype", "reset",
        "stats", "error", "sfreq", "ch_names", "score", "channels", "label", "zz"]  # fmt: skip


def ward_messages() -> list[list[bytes]]:
    """A valid ward status (4 beds, one alarm) and a valid alarm message."""
    from rt_eeg.ward.demo import demo_ward
    from rt_eeg.ward.status import encode_status

    beds, alarms, traces = demo_ward(4, seizure_beds=(1,))
    status = encode_status(0, 1.7e9, beds, alarms, traces)
    alarm = encode(
        "alarm", {"kind": "alarm", "seq": 0, "alarm": alarms[0]}, np.zeros(0, np.float32)
    )
    return [status, alarm]


def mutate_ward(rng: random.Random, parts: list[bytes]) -> list[bytes]:
    """Wrong types and values in the keys of a bed or alarm record."""
    h = json.loads(parts[1])
    recs = h.get("beds", []) + h.get("alarms", []) + ([h["alarm"]] if "alarm" in h else [])
    for _ in range(rng.randint(1, 3)):
        rec = rng.choice(recs)
        rec[rng.choice(sorted(rec))] = rng.choice(VALUES)
    return [rng.choice([parts[0], b"ward", b"alarm"]), json.dumps(h).encode(), parts[2]]


def cases(rng: random.Random):
    good = encode("signal", {"kind": "data", "seq": 1, "t0": 0.0, "stream": "source"},
                  np.zeros((25, 22), np.float32))  # fmt: skip
    ward = ward_messages()
    while True:
        r = rng.random()
        if r < 0.2:
            yield [rng.randbytes(rng.randint(0, 64)) for _ in range(rng.randint(0, 5))]
        elif r < 0.3:
            yield mutate_ward(rng, rng.choice(ward))
        elif r < 0.5:  # byte-level mutation of a valid message
            parts = [bytearray(p) for p in rng.choice([good, good, *ward])]
            i = rng.randrange(3)
            for _ in range(rng.randint(1, 8)):
                if parts[i]:
                    parts[i][rng.randrange(len(parts[i]))] = rng.randrange(256)
            yield [bytes(p) for p in parts]
        elif r < 0.9:  # field-level: wrong types and values in known keys
            h = json.loads(good[1])
            for _ in range(rng.randint(1, 4)):
                h[rng.choice(KEYS)] = rng.choice(VALUES)
            body = good[2][: rng.choice([0, 4, len(good[2])])]
            yield [
                rng.choice([b"signal", b"probs", b"control", b"zz"]),
                json.dumps(h).encode(),
                body,
            ]
        else:  # deep or huge headers
            n = rng.choice([10, 1000, 100_000])
            yield [b"signal", rng.choice([b"[", b'{"a":']) * n, b""]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "tools" / "results" / "fuzz_wire.json"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    expect = Expect("signal", (22,), max_t0=3600.0, step_s=1 / 250, streams=frozenset({"source"}))
    n = accepted = 0
    slowest, failures = 0.0, []
    t_end = time.monotonic() + args.seconds
    for parts in cases(rng):
        if time.monotonic() > t_end:
            break
        n += 1
        t0 = time.perf_counter()
        try:
            msg = decode(parts)
            if msg.topic not in ("ward", "alarm"):  # ward kinds have no per-input context
                expect.check(msg)
            accepted += 1
        except MessageError:
            pass
        except Exception as err:  # noqa: BLE001 - any other exception is a finding
            failures.append(
                {
                    "error": f"{type(err).__name__}: {err}"[:200],
                    "parts": [p[:200].hex() for p in parts],
                }
            )
        slowest = max(slowest, time.perf_counter() - t0)
    result = {"seconds": args.seconds, "seed": args.seed, "cases": n, "accepted": accepted,
              "rejected": n - accepted - len(failures), "failures": failures[:20],
              "n_failures": len(failures), "slowest_case_ms": round(slowest * 1000, 3)}  # fmt: skip
    write_json_atomic(args.out, result)
    print(json.dumps({k: v for k, v in result.items() if k != "failures"}))
    return 1 if failures or slowest > 0.5 else 0


if __name__ == "__main__":
    sys.exit(main())
