"""tools/ensemble_probs.py: the mean of members' stored decoder outputs, recording by recording;
recordings missing from a member skipped, members that disagree on epochs refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
ensemble_probs = pytest.importorskip("ensemble_probs")


def _write(folder: Path, name: str, probs: np.ndarray, starts=None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    n = probs.shape[0]
    np.savez(folder / f"{name}.probs.npz",
             epoch_starts=np.arange(n, dtype=np.float64) if starts is None else starts,
             probs=probs.astype(np.float32), ch_names=np.array([f"C{i}" for i in range(probs.shape[1])]),
             duration=np.float64(n), montage=np.array("tcp_ar"))  # fmt: skip


def test_mean_of_members_for_recordings_all_hold(tmp_path):
    rng = np.random.default_rng(3)
    a, b = rng.random((40, 4)), rng.random((40, 4))
    _write(tmp_path / "m1", "rec1", a)
    _write(tmp_path / "m2", "rec1", b)
    _write(tmp_path / "m1", "only_in_m1", rng.random((5, 4)))
    rc = ensemble_probs.main(["--member", str(tmp_path / "m1"), "--member", str(tmp_path / "m2"),
                              "--out", str(tmp_path / "ens")])  # fmt: skip
    assert rc == 0
    assert sorted(p.name for p in (tmp_path / "ens").iterdir()) == ["rec1.probs.npz"]
    with np.load(tmp_path / "ens" / "rec1.probs.npz") as z:
        assert z["probs"].dtype == np.float32
        np.testing.assert_allclose(z["probs"], (a.astype(np.float32) + b.astype(np.float32)) / 2,
                                   rtol=0, atol=1e-7)  # fmt: skip
        assert list(z["ch_names"]) == ["C0", "C1", "C2", "C3"]
        assert str(z["montage"]) == "tcp_ar"


def test_members_disagreeing_on_epochs_are_refused(tmp_path):
    p = np.full((10, 2), 0.5)
    _write(tmp_path / "m1", "rec", p)
    _write(tmp_path / "m2", "rec", p, starts=np.arange(10, dtype=np.float64) + 1)
    with pytest.raises(SystemExit, match="rec: members disagree on epoch_starts"):
        ensemble_probs.main(["--member", str(tmp_path / "m1"), "--member", str(tmp_path / "m2"),
                             "--out", str(tmp_path / "ens")])  # fmt: skip
    assert not (tmp_path / "ens" / "rec.probs.npz").exists()


def test_a_corrupt_member_file_is_named(tmp_path):
    _write(tmp_path / "m1", "rec", np.zeros((3, 2)))
    (tmp_path / "m2").mkdir()
    (tmp_path / "m2" / "rec.probs.npz").write_bytes(b"not a zip")
    with pytest.raises(SystemExit, match=r"m2/rec\.probs\.npz: not a readable decoder-output"):
        ensemble_probs.main(["--member", str(tmp_path / "m1"), "--member", str(tmp_path / "m2"),
                             "--out", str(tmp_path / "ens")])  # fmt: skip


def test_veto_keeps_the_first_member_where_the_second_agrees(tmp_path):
    p1 = np.array([[0.9, 0.2], [0.99, 0.8], [0.7, 0.6]])
    p2 = np.array([[0.6, 0.5], [0.25, 0.1], [0.5, 0.0]])
    _write(tmp_path / "m1", "rec", p1)
    _write(tmp_path / "m2", "rec", p2)
    rc = ensemble_probs.main(["--member", str(tmp_path / "m1"), "--member", str(tmp_path / "m2"),
                              "--out", str(tmp_path / "v"), "--veto", "0.5"])  # fmt: skip
    assert rc == 0
    with np.load(tmp_path / "v" / "rec.probs.npz") as z:
        want = np.array([[0.9, 0.2], [0.495, 0.16], [0.7, 0.0]], np.float32)
        np.testing.assert_allclose(z["probs"], want, rtol=0, atol=1e-7)
    with pytest.raises(SystemExit, match="--veto takes exactly two"):
        ensemble_probs.main(["--member", str(tmp_path / "m1"), "--member", str(tmp_path / "m2"),
                             "--member", str(tmp_path / "m2"), "--out", str(tmp_path / "w"),
                             "--veto", "0.5"])  # fmt: skip
