"""The numeric environment a manifest records: CPU, numpy's SIMD dispatch, ISA variables."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

from rt_eeg.numeric_env import ISA_VARIABLES, cpu_model, numeric_environment, numpy_simd


def test_cpu_model_reads_cpuinfo_and_falls_back(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) X\n")
    assert cpu_model(info) == "Intel(R) Xeon(R) X"
    assert cpu_model(tmp_path / "missing") == platform.processor()
    (tmp_path / "empty").write_text("processor\t: 0\n")
    assert cpu_model(tmp_path / "empty") == platform.processor()


def _env_in_child(**env) -> dict:
    """numeric_environment() in a fresh interpreter (numpy reads its variables at import)."""
    child_env = {k: v for k, v in os.environ.items() if k not in ISA_VARIABLES} | env
    out = subprocess.run(
        [sys.executable, "-c",
         "import json; from rt_eeg.numeric_env import numeric_environment as f; "
         "print(json.dumps(f()))"],
        env=child_env, capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


def test_records_numpy_dispatch_and_the_variables_that_hold_it_back():
    here = numeric_environment()
    assert here["machine"] == platform.machine()
    assert here["numpy_simd"] == numpy_simd()
    plain = _env_in_child()
    assert plain["isa_variables"] == {}
    held = _env_in_child(TF_ENABLE_ONEDNN_OPTS="0", ONEDNN_MAX_CPU_ISA="AVX2")
    assert held["isa_variables"] == {"TF_ENABLE_ONEDNN_OPTS": "0", "ONEDNN_MAX_CPU_ISA": "AVX2"}
    above_v3 = [t for t in plain["numpy_simd"] if t != "X86_V3"]
    if above_v3 and platform.machine() == "x86_64":  # targets above AVX2: holding them back shows
        limited = _env_in_child(NPY_DISABLE_CPU_FEATURES=" ".join(above_v3))
        assert limited["numpy_simd"] == [t for t in plain["numpy_simd"] if t == "X86_V3"]
        assert limited["isa_variables"]["NPY_DISABLE_CPU_FEATURES"] == " ".join(above_v3)


def test_numpy_levels_each_a_disable_list():
    from rt_eeg.numeric_env import main, numpy_levels

    spr = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]
    assert numpy_levels(spr) == {
        "default": "",
        "x86_v4": "AVX512_ICL AVX512_SPR",
        "avx2": "X86_V4 AVX512_ICL AVX512_SPR",
    }
    assert numpy_levels(["X86_V3", "X86_V4"]) == {"default": "", "avx2": "X86_V4"}
    assert numpy_levels(["X86_V3"]) == {"default": ""}  # an AVX2 machine: one level
    assert numpy_levels([]) == {"default": ""}
    assert main(["--numpy-levels"]) == 0


def test_avx2_variables_hold_numpy_openblas_and_onednn_back():
    from rt_eeg.numeric_env import avx2_variables

    assert avx2_variables("aarch64", ["ASIMD"]) == {}
    assert avx2_variables("x86_64", []) == {}  # below AVX2: OpenBLAS's Haswell kernels would fault
    assert avx2_variables("x86_64", ["X86_V3"]) == {
        "OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2"}  # fmt: skip
    v = avx2_variables("x86_64", ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"])
    assert v["NPY_DISABLE_CPU_FEATURES"] == "X86_V4 AVX512_ICL AVX512_SPR"
    assert set(ISA_VARIABLES) >= set(v)


def test_avx2_exports_evaluated_by_a_shell_reach_numpy():
    """The recipe's use: `eval "$(python -m rt_eeg.numeric_env --avx2-exports)"`, then numpy
    in a later process dispatches to X86_V3 at most."""
    env = {k: v for k, v in os.environ.items() if k not in ISA_VARIABLES}
    script = (
        f'eval "$({sys.executable} -m rt_eeg.numeric_env --avx2-exports)"; '
        f"{sys.executable} -c 'import json; from rt_eeg.numeric_env import numeric_environment as f;"
        f" print(json.dumps(f()))'"
    )
    out = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    if platform.machine() == "x86_64":
        assert set(got["numpy_simd"]) <= {"X86_V3"}
        assert got["isa_variables"]["OPENBLAS_CORETYPE"] == "Haswell"
        assert got["isa_variables"]["ONEDNN_MAX_CPU_ISA"] == "AVX2"
    else:
        assert got["isa_variables"] == {}


def test_cpu_id_names_vendor_family_and_model(tmp_path):
    from rt_eeg.numeric_env import cpu_id

    info = tmp_path / "cpuinfo"
    # two processors; the first block is read, and model name does not stand in for model
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"
                    "model name\t: AMD EPYC\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\n"
                    "cpu family\t: 25\nmodel\t\t: 17\n")  # fmt: skip
    assert cpu_id(info) == "AuthenticAMD family 25 model 1"
    (tmp_path / "arm").write_text("processor\t: 0\nBogoMIPS\t: 50.00\n")  # no family / model
    assert cpu_id(tmp_path / "arm") == ""
    assert cpu_id(tmp_path / "missing") == ""


def _onednn_in_child(flag: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ISA_VARIABLES} | {
        "TF_ENABLE_ONEDNN_OPTS": flag, "TF_CPP_MIN_LOG_LEVEL": "3"}  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c",
         "import json; from rt_eeg.numeric_env import numeric_environment as f; a = f(); "
         "import tensorflow; print(json.dumps([a, f()]))"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_tensorflow_onednn_is_reported_once_tensorflow_is_loaded():
    before, off = _onednn_in_child("0")
    assert "tensorflow_onednn" not in before  # not imported for the asking
    assert off["tensorflow_onednn"] is False
    _, on = _onednn_in_child("1")
    assert on["tensorflow_onednn"] is True
