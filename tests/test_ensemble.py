"""Deep ensembles (rt-eeg ensemble): the combined folder equals the mean of its members (or
the sigmoid of their mean logit, ``--combine logit``) window by window, in LiteRT and
TensorFlow, streams == batch, and refuses members that do not match."""

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
            from rt_eeg.decoder.model import load_model

            _, infer = load_model(folder / "model.keras", "/CPU:0")
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


@pytest.fixture(scope="module")
def confident(members, tmp_path_factory):
    """Member 1 with its sigmoid head's weights x 12: probabilities near 0 and 1, where a mean
    of probabilities and a mean of logits part ways."""
    import shutil

    import keras

    from rt_eeg.model_files import add_tflite, rehash_model

    out = tmp_path_factory.mktemp("conf") / "m"
    shutil.copytree(members[1], out)
    model = keras.saving.load_model(out / "model.keras", compile=False)
    head = model.get_layer("p_seiz")
    head.set_weights([w * 12.0 for w in head.get_weights()])
    (out / "model.keras").unlink()
    model.save(out / "model.keras")
    rehash_model(out)
    add_tflite(out)
    return out


@pytest.mark.parametrize("device", ["cpu", "tf"])
def test_logit_pooling_is_the_sigmoid_of_the_mean_logit(members, confident, tmp_path, device):
    """--combine logit: P = sigmoid(mean_i logit(p_i)) per window (LiteRT and TensorFlow)."""
    from rt_eeg.decoder.model import load_model

    folders = [members[0], confident, members[2]]
    ens = write_ensemble(folders, tmp_path / "e", combine="logit")
    windows = np.random.default_rng(7).normal(0, 1, (60, WINDOW_FRAMES, 26)).astype(np.float32)

    def run(folder):
        if device == "tf":
            return np.asarray(load_model(folder / "model.keras", "/CPU:0")[1](windows))
        return Decoder(folder, device="cpu")._run(windows)

    each = np.stack([run(f) for f in folders]).astype(np.float64)
    assert each[1].min() < 0.01 and each[1].max() > 0.99  # the confident member saturates
    want = 1.0 / (1.0 + np.exp(-np.log(each / (1.0 - each)).mean(axis=0)))
    got = run(ens)
    np.testing.assert_allclose(got, want, atol=2e-5)
    assert np.abs(got - each.mean(axis=0)).max() > 0.05  # not the mean of probabilities
    man = json.loads((ens / "manifest.json").read_text())["ensemble"]
    assert man["pooling"] == "logit" and "logits" in man["combine"]


def test_logit_pooling_streams_equal_batch_and_cli(members, tmp_path, capsys):
    out = tmp_path / "el"
    rc = cli_main(["ensemble", "--combine", "logit", "--members",
                   ",".join(str(m) for m in members), "--out", str(out)])  # fmt: skip
    assert rc == 0 and "logit mean of 3 members" in capsys.readouterr().out
    dec = Decoder(out, device="cpu")
    feats = lfcc_like(np.random.default_rng(9), 10 * 60, n_ch=4)
    want = dec.predict_recording(feats)
    stream = dec.open_stream(4)
    got = [dec.predict_many([(stream, feats[i : i + 23], None)])[0][1]
           for i in range(0, len(feats), 23)]  # fmt: skip
    np.testing.assert_allclose(np.concatenate(got), want, atol=1e-5)
    with pytest.raises(RtEegError, match="unknown ensemble pooling"):
        write_ensemble(members, tmp_path / "x", combine="median")
    assert not (tmp_path / "x").exists()
