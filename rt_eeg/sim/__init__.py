"""Simulated EEG corpora in the TUSZ v2 layout (see :mod:`rt_eeg.sim.corpus`).

Modules: ``layout`` (electrodes, TUH names, TCP pairs), ``profile`` (per-patient
parameters), ``background`` (coloured noise, states, rhythms, sleep transients),
``artifacts``, ``seizures``, ``transients`` (event rendering), ``recording`` (one
recording: plan, block generator), ``writer`` (EDF, annotations, families sidecar),
``corpus`` (whole corpora and ``--from-annotations``); signal families: ``families`` (the
registry), ``seizure_families``, ``benign``, ``variety`` (per-recording variety).
"""

from __future__ import annotations

from rt_eeg.sim.profile import SEIZURE_KINDS, PatientProfile
from rt_eeg.sim.recording import RecordingPlan, plan_recording, simulate_recording
from rt_eeg.sim.seizures import Seizure, SeizureSpec
from rt_eeg.sim.writer import write_plan, write_recording

__all__ = [
    "SEIZURE_KINDS",
    "PatientProfile",
    "RecordingPlan",
    "Seizure",
    "SeizureSpec",
    "plan_recording",
    "simulate_recording",
    "write_plan",
    "write_recording",
]
