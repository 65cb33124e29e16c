"""What decides the last bits of the numbers on this machine, recorded beside a trained model.

Seeds, op determinism and thread pools make training bit-identical on one machine
(:mod:`rt_eeg.train`). Across machines two more things count (measured 2026-11-27, README
"Reproducibility across CPUs"): the SIMD level numpy dispatches to (its AVX-512 kernels round
some generators' signals differently in the last bits, and thresholded labels flip), and
TensorFlow's oneDNN kernels, which pick their instruction set from the CPU. Both can be held
back by environment variables; this module reports the CPU, what numpy dispatches to, and those
variables, so a manifest says which environment reproduces it.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

#: Environment variables that change which kernels numpy or TensorFlow's oneDNN run.
ISA_VARIABLES = (
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
    "TF_ENABLE_ONEDNN_OPTS",
    "ONEDNN_MAX_CPU_ISA",
    "DNNL_MAX_CPU_ISA",
)


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's model name (``/proc/cpuinfo``), else :func:`platform.processor`, else ''."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return platform.processor()


def numpy_simd() -> list[str]:
    """numpy's dispatch targets that run here (after ``NPY_DISABLE_CPU_FEATURES``), e.g.
    ``['X86_V3', 'X86_V4', 'AVX512_ICL', 'AVX512_SPR']``; [] when numpy does not say."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a numpy without the (private) tables: say nothing rather than guess
        return []
    return [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]


def numeric_environment() -> dict:
    """The machine facts and settings that decide last bits, for a manifest.

    Returns
    -------
    dict
        ``machine`` (e.g. 'x86_64'), ``cpu`` (model name), ``numpy_simd`` (list of str), and
        ``isa_variables``: each of :data:`ISA_VARIABLES` that is set, with its value.
    """
    return {
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "numpy_simd": numpy_simd(),
        "isa_variables": {k: os.environ[k] for k in ISA_VARIABLES if k in os.environ},
    }
