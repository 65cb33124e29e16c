"""A decode with any gate (Decoder.predict_recording(features, accept), tools/gate_oracle.py):
the model's own calls reproduce the live run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from lfcc_like import lfcc_like

from rt_eeg.context import gate_score
from rt_eeg.decoder import Decoder, write_untrained_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
]


def test_own_calls_as_the_gate_reproduce_the_streaming_decode_bit_for_bit(tmp_path):
    dec = Decoder(write_untrained_model(tmp_path / "m", normalisation="context", seed=3), device="cpu")
    feats = lfcc_like(np.random.default_rng(8), 10 * 400, n_ch=6)
    feats[2000:2600, :, :4] += 4.0  # a lasting departure, so what the gate admits matters
    first = dec.predict_recording(feats)
    # a gate level inside this untrained model's score range: some epochs called, some not
    dec.gate = float(np.quantile(gate_score(first, dec.gate_top_k), 0.7))
    live = dec.predict_recording(feats)
    calls = gate_score(live, dec.gate_top_k) >= dec.gate
    assert 0 < calls.sum() < len(calls)
    np.testing.assert_array_equal(dec.predict_recording(feats, ~calls), live)
    # another gate gives other scores (the context feeds the inputs)
    ungated = dec.predict_recording(feats, np.ones(len(calls), bool))
    assert ungated.shape == live.shape and not np.array_equal(ungated, live)


def test_a_recording_without_a_stored_run_is_one_clear_error(tmp_path, capsys):
    from gate_oracle import main

    model = write_untrained_model(tmp_path / "m", normalisation="context", seed=3)
    lst = tmp_path / "one.list"
    lst.write_text(str(tmp_path / "rec_s001_t000.edf") + "\n")
    rc = main(["--model", str(model), "--list", str(lst), "--gated", str(tmp_path / "none"),
               "--out-oracle", str(tmp_path / "o"), "--out-ungated", str(tmp_path / "u")])
    err = capsys.readouterr().err.strip()
    assert rc == 1 and len(err.splitlines()) == 1
    assert "rec_s001_t000.probs.npz" in err


def test_accept_must_match_the_epochs_and_needs_a_context_model(tmp_path):
    ctx = Decoder(write_untrained_model(tmp_path / "c", normalisation="context", seed=3), device="cpu")
    plain = Decoder(write_untrained_model(tmp_path / "p", seed=3), device="cpu")
    feats = lfcc_like(np.random.default_rng(2), 10 * 30, n_ch=3)
    with pytest.raises(ValueError, match="accept has 29 epochs, the features 30"):
        ctx.predict_recording(feats, np.ones(29, bool))
    with pytest.raises(ValueError, match="context models only"):
        plain.predict_recording(feats, np.ones(30, bool))
