"""What decides the last bits of the numbers on this machine, recorded beside a trained model.

Seeds, op determinism and thread pools make training bit-identical on one machine
(:func:`configure_tensorflow`, called by :mod:`rt_eeg.train`; :func:`library_versions` records
what computed the numbers). Across machines three more things count (measured 2026-11-27, README
"Reproducibility across CPUs"): the SIMD level numpy dispatches to and the kernels OpenBLAS
picks for the CPU (the generators ``dip`` and ``epileptor`` amplify their last bits: thresholded
labels flip, chaotic dynamics diverge), and TensorFlow's oneDNN kernels, which pick their
instruction set from the CPU. All three are held back by environment variables;
:func:`avx2_variables` gives the values that make an x86-64 machine compute what an AVX2 one
does, and :func:`numeric_environment` reports the CPU, numpy's dispatch and the variables set,
so a manifest says which environment reproduces it.

``python -m rt_eeg.numeric_env --avx2-exports`` prints :func:`avx2_variables` as shell
``export`` lines (nothing off x86-64), for a script to ``eval`` before numpy is imported;
``--numpy-levels`` prints :func:`numpy_levels` (``tools/device_isa_check.sh`` runs each).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

#: Environment variables that change which kernels numpy or TensorFlow's oneDNN run.
ISA_VARIABLES = (
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
    "OPENBLAS_CORETYPE",
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


def cpu_id(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """``'<vendor> family F model M'`` from ``/proc/cpuinfo``, else ''.

    The model name alone does not tell CPU classes apart (two AMD EPYC VMs both say 'AMD EPYC':
    a Zen 3 and a Zen 4, which train other weights from the same store, README "Reproducibility
    across CPUs").
    """
    fields: dict[str, str] = {}
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, sep, value = line.partition(":")
            key = key.strip()
            if not sep:
                if fields:  # the first processor's block is enough
                    break
                continue
            if key in ("vendor_id", "cpu family", "model") and key not in fields:
                fields[key] = value.strip()
    except OSError:
        return ""
    if "cpu family" not in fields or "model" not in fields:
        return ""
    return f"{fields.get('vendor_id', '?')} family {fields['cpu family']} model {fields['model']}"


def tensorflow_onednn() -> bool | None:
    """Whether TensorFlow runs its oneDNN kernels here; None when TensorFlow is not imported.

    TensorFlow turns oneDNN on by default only on CPUs with AVX-512 VNNI / BF16 or AMX
    (``TF_ENABLE_ONEDNN_OPTS`` overrides it), so ``ONEDNN_MAX_CPU_ISA`` pins nothing on a CPU
    without them: there TensorFlow's own kernels train (measured 2026-12-02 on a Zen 3 EPYC).
    Not imported here for the asking: only a process that already loaded TensorFlow reports it.
    """
    if "tensorflow" not in sys.modules:
        return None
    try:
        from tensorflow.python.util import _pywrap_util_port
    except ImportError:  # a TensorFlow without the (private) probe: say nothing
        return None
    return bool(_pywrap_util_port.IsMklEnabled())


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
        ``machine`` (e.g. 'x86_64'), ``cpu`` (model name), ``cpu_id`` (vendor, family and
        model: :func:`cpu_id`), ``numpy_simd`` (list of str), ``isa_variables``: each of
        :data:`ISA_VARIABLES` that is set, with its value; and ``tensorflow_onednn``
        (:func:`tensorflow_onednn`) when TensorFlow is loaded.
    """
    env = {
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cpu_id": cpu_id(),
        "numpy_simd": numpy_simd(),
        "isa_variables": {k: os.environ[k] for k in ISA_VARIABLES if k in os.environ},
    }
    onednn = tensorflow_onednn()
    return env if onednn is None else env | {"tensorflow_onednn": onednn}


def numpy_levels(simd: list[str] | None = None) -> dict[str, str]:
    """The numpy SIMD levels this CPU can run at, each as its ``NPY_DISABLE_CPU_FEATURES``.

    Parameters
    ----------
    simd : list of str, optional
        numpy's dispatch targets that run here (:func:`numpy_simd` by default).

    Returns
    -------
    dict
        ``'default'``: '' (everything the CPU has); ``'x86_v4'``: the targets above
        ``X86_V4`` (AVX-512 SKX), when it runs and something is above it; ``'avx2'``: every
        target above ``X86_V3``, when it runs and something is above it.
    """
    simd = numpy_simd() if simd is None else simd
    levels = {"default": ""}
    above_v4 = [t for t in simd if t not in ("X86_V3", "X86_V4")]
    if "X86_V4" in simd and above_v4:
        levels["x86_v4"] = " ".join(above_v4)
    above_v3 = [t for t in simd if t != "X86_V3"]
    if "X86_V3" in simd and above_v3:
        levels["avx2"] = " ".join(above_v3)
    return levels


def avx2_variables(machine: str | None = None, simd: list[str] | None = None) -> dict[str, str]:
    """Environment that makes this machine's numpy, OpenBLAS and oneDNN compute as on AVX2.

    Parameters
    ----------
    machine : str, optional
        ``platform.machine()`` by default; anything but x86-64 gets ``{}``, and so does a
        CPU without AVX2 (``X86_V3`` not among ``simd``).
    simd : list of str, optional
        numpy's dispatch targets that run here (:func:`numpy_simd` by default); every one
        above ``X86_V3`` is disabled (numpy refuses to disable a target it does not know).

    Returns
    -------
    dict
        ``NPY_DISABLE_CPU_FEATURES`` (only when there is something to disable),
        ``OPENBLAS_CORETYPE=Haswell`` (OpenBLAS's AVX2 kernels, what AMD Zen runs too) and
        ``ONEDNN_MAX_CPU_ISA=AVX2``.
    """
    simd = numpy_simd() if simd is None else simd
    if (machine or platform.machine()) not in ("x86_64", "AMD64") or "X86_V3" not in simd:
        return {}  # not x86-64, or below AVX2 (or numpy says nothing): nothing to hold back to
    above = numpy_levels(simd).get("avx2")
    return ({"NPY_DISABLE_CPU_FEATURES": above} if above else {}) | {
        "OPENBLAS_CORETYPE": "Haswell",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
    }


def configure_tensorflow(seed: int, threads: int = 0) -> dict:
    """Seed every random source, enable op determinism, fix thread pools; return settings."""
    import keras

    from rt_eeg.runtime import import_tensorflow

    tf = import_tensorflow()
    if threads:
        try:
            tf.config.threading.set_intra_op_parallelism_threads(threads)
            tf.config.threading.set_inter_op_parallelism_threads(threads)
        except RuntimeError:
            pass  # runtime already initialised in this process: the recorded values say so
    keras.config.set_floatx("float32")
    keras.utils.set_random_seed(int(seed))
    tf.config.experimental.enable_op_determinism()
    return {
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads(),
        "op_determinism": True,
        "cpu_count": os.cpu_count(),
        "floatx": keras.config.floatx(),
    }


def library_versions() -> dict:
    """Versions of the libraries that determine the numbers (scipy's filters and FFTs make the
    simulated corpora and the features; numpy's, the corpora too; TensorFlow's, the weights)."""
    import keras
    import numpy as np
    import scipy

    from rt_eeg.runtime import import_tensorflow

    tf = import_tensorflow()
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "tensorflow": tf.__version__,
        "keras": keras.__version__,
    }


def main(argv: list[str] | None = None) -> int:
    """``--avx2-exports``: print :func:`avx2_variables` as ``export NAME='value'`` lines;
    ``--numpy-levels``: print :func:`numpy_levels` as ``NAME<TAB>disabled targets`` lines."""
    import argparse
    import shlex

    p = argparse.ArgumentParser(prog="python -m rt_eeg.numeric_env", description=main.__doc__)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--avx2-exports", action="store_true")
    what.add_argument("--numpy-levels", action="store_true")
    args = p.parse_args(argv)
    if args.numpy_levels:
        for name, value in numpy_levels().items():
            print(f"{name}\t{value}")
        return 0
    for name, value in avx2_variables().items():
        print(f"export {name}={shlex.quote(value)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
