"""Deep ensembles (rt-eeg ensemble): the combined folder equals the mean of its members window
by window, in LiteRT and TensorFlow, streams == batch, and refuses members that do not match."""

from __future__ import annotations

import json

import numpy as np
import pytest
from lfcc_like import lfcc_like

from rt_eeg.cli import main as cli_main
from rt_eeg.decoder import WINDOW_FRAMES, Decoder, write_untrained_model
from rt_eeg.ensemble import write_ensemble
from rt_eeg.errors import RtEegError

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def members(tmp_path_factory):
    root = tmp_path_factory.mktemp("members")
    return [
        write_untrained_model(root / f"s{seed}", normalisation="context", seed=seed)
        for seed in (0, 1, 2)
    ]


@pytest.fixture(scope="module")
def ensemble(members, tmp_path_factory):
    return write_ensemble(members, tmp_path_factory.mktemp("ens") / "e", command_line="test")


@pytest.mark.parametrize("device", ["cpu", "tf"])
def test_ensemble_is_the_mean_of_its_members(members, ensemble, device):
    """Per window, P(seizure) of the ensemble = mean of the members' (LiteRT and TensorFlow)."""
    rng = np.random.default_rng(4)
    windows = rng.normal(0, 1, (45, WINDOW_FRAMES, 26)).astype(np.float32)

    def run(folder):
        dec = Decoder(folder, device="cpu")
        if device == "tf":  # the TensorFlow path (a GPU machine, or a folder without .tflite)
            from rt_eeg.decoder.model import _load_model

            _, infer = _load_model(folder / "model.keras", "/CPU:0")
            return infer(windows)
        assert dec.runtime == "litert"
        return dec._run(windows)

    got = run(ensemble)
    each = np.stack([run(m) for m in members])
    assert got.shape == (45,)
    # untrained members disagree, so the test can tell a mean from any one member
    assert np.abs(each[0] - each[1]).max() > 1e-3
    np.testing.assert_allclose(got, each.mean(axis=0), atol=2e-6)


def test_ensemble_streams_equal_batch(ensemble):
    dec = Decoder(ensemble, device="cpu")
    feats = lfcc_like(np.random.default_rng(5), 10 * 80, n_ch=6)
    want = dec.predict_recording(feats)
    stream = dec.open_stream(6)
    got = []
    for i in range(0, len(feats), 37):
        _, probs = dec.predict_many([(stream, feats[i : i + 37], None)])[0]
        got.append(probs)
    np.testing.assert_allclose(np.concatenate(got), want, atol=1e-5)


def test_manifest_records_members_and_is_reproducible(members, ensemble, tmp_path):
    man = json.loads((ensemble / "manifest.json").read_text())
    assert [r["seed"] for r in man["ensemble"]["members"]] == [0, 1, 2]
    assert man["architecture"]["members"] == 3
    assert man["decoder"] == json.loads((members[0] / "manifest.json").read_text())["decoder"]
    again = write_ensemble(members, tmp_path / "again")
    man2 = json.loads((again / "manifest.json").read_text())
    assert man2["weights_sha256"] == man["weights_sha256"]


def test_mismatched_members_are_refused(members, ensemble, tmp_path):
    other = write_untrained_model(tmp_path / "maxabs", normalisation="maxabs", seed=5)
    with pytest.raises(RtEegError, match="normalisation"):
        write_ensemble([members[0], other], tmp_path / "x")
    with pytest.raises(RtEegError, match="at least two"):
        write_ensemble([members[0]], tmp_path / "x")
    with pytest.raises(RtEegError, match="listed twice"):
        write_ensemble([members[0], members[0]], tmp_path / "x")
    with pytest.raises(RtEegError, match="itself an ensemble"):
        write_ensemble([members[0], ensemble], tmp_path / "x")
    with pytest.raises(RtEegError, match="one of its members"):
        write_ensemble(members[:2], members[1])
    assert not (tmp_path / "x").exists()  # nothing written when refused


def test_cli_error_is_one_line(members, tmp_path, capsys):
    rc = cli_main(["ensemble", "--members", f"{members[0]},{tmp_path / 'nope'}",
                   "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert rc != 0 and len(err) == 1 and "nope" in err[0] and "model.keras" in err[0]
    assert not (tmp_path / "o").exists()


def test_members_with_their_own_context_scale_see_their_own_inputs(members, tmp_path):
    """Seeds estimate slightly different context feature scales; the ensemble feeds member 0's
    scaling and folds each other member's ratio into its first layer."""
    import shutil

    from rt_eeg.model_files import rehash_model

    other = tmp_path / "scaled"
    shutil.copytree(members[1], other)
    man = json.loads((other / "manifest.json").read_text())
    scale = np.random.default_rng(2).uniform(0.5, 2.0, 26)
    man["decoder"]["context"]["feature_scale"] = [float(v) for v in scale]
    (other / "manifest.json").write_text(json.dumps(man))
    rehash_model(other)
    ens = write_ensemble([members[0], other], tmp_path / "e")
    rows = json.loads((ens / "manifest.json").read_text())["ensemble"]["members"]
    assert [r["input_scale_folded"] for r in rows] == [False, True]
    windows = np.random.default_rng(4).normal(0, 1, (40, WINDOW_FRAMES, 26)).astype(np.float32)
    # member 0 scale is 1.0: the other member's own inputs are rel / scale
    own = (windows / scale[None, None, :]).astype(np.float32)
    want = 0.5 * (Decoder(members[0], device="cpu")._run(windows)
                  + Decoder(other, device="cpu")._run(own))  # fmt: skip
    got = Decoder(ens, device="cpu")._run(windows)
    np.testing.assert_allclose(got, want, atol=2e-6)
    unfolded = 0.5 * (Decoder(members[0], device="cpu")._run(windows)
                      + Decoder(other, device="cpu")._run(windows))  # fmt: skip
    assert np.abs(got - unfolded).max() > 1e-3  # the fold matters
