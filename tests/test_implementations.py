"""The compiled core's implementations: what this processor runs, the switch, the
environment variable, and the errors for a name it cannot run."""

from __future__ import annotations

import platform
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from _support import subprocess_env

import fibnim
from fibnim import _backend


def compiled_core() -> None:
    if "cython" not in _backend.available():
        pytest.skip("no compiled core in this installation")


def test_the_processor_runs_some_in_the_order_of_all(backend):
    compiled_core()
    here = fibnim.implementations()
    assert here[-1] == "scalar"  # portable C: every build has it
    assert list(here) == [name for name in _backend.IMPLEMENTATIONS if name in here]
    expected = "python" if backend == "python" else here[0]
    assert fibnim.implementation == expected


def test_each_can_be_chosen_and_holds_in_every_thread(backend):
    compiled_core()
    _backend.use("cython")
    before = fibnim.implementation
    try:
        for name in fibnim.implementations():
            fibnim.use_implementation(name)
            seen: list[str] = []
            thread = threading.Thread(target=lambda out=seen: out.append(fibnim.implementation))
            thread.start()
            thread.join()
            assert fibnim.implementation == name and seen == [name]
            assert fibnim.wythoff.is_safe(np.array([3, 4]), np.array([5, 5])).tolist() == [
                True,
                False,
            ]
    finally:
        fibnim.use_implementation(before)


def test_a_name_it_cannot_run_is_a_value_error_naming_those_it_can(backend):
    compiled_core()
    before = fibnim.implementation if backend == "cython" else None
    cannot = sorted(set(_backend.IMPLEMENTATIONS) - set(fibnim.implementations()))
    for name in ["sve2", "AVX2", "", 2, *cannot]:
        with pytest.raises(ValueError) as info:
            fibnim.use_implementation(name)
        message = str(info.value)
        assert repr(name) in message and ", ".join(fibnim.implementations()) in message
        assert ("unsupported" if name in _backend.IMPLEMENTATIONS else "unknown") in message
    if before is not None:
        assert fibnim.implementation == before  # unchanged


def import_with(value: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env()
    env.pop("FIBNIM_PURE_PYTHON", None)  # the compiled core's choice, whatever the test's backend
    env["FIBNIM_IMPLEMENTATION"] = value
    return subprocess.run(
        [sys.executable, "-c", "import fibnim; print(fibnim.implementation)"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_the_environment_variable_chooses_at_import(backend):
    compiled_core()
    for name in fibnim.implementations():
        result = import_with(name)
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == [name]
    result = import_with("sve2")
    assert result.returncode != 0
    assert (
        "ImportError: FIBNIM_IMPLEMENTATION=sve2: unknown implementation 'sve2'" in result.stderr
    )


# what each implementation needs of the processor, by the flags (x86-64) or
# Features (AArch64: asimd is NEON) that Linux lists
NEEDS = {
    "avx512ifma": {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd", "avx512ifma"},
    "avx512": {"avx512f", "avx512vl", "avx512bw", "avx512dq", "avx512cd"},
    "avx2": {"avx2", "bmi2", "fma"},
    "neon": {"asimd"},
    "scalar": set(),
}


def test_the_processor_check_agrees_with_the_flags_linux_lists():
    compiled_core()
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        pytest.skip("no /proc/cpuinfo to compare with")
    # under emulation (qemu-user) /proc/cpuinfo is the host's, of another architecture
    key = "Features" if platform.machine().lower() in {"aarch64", "arm64"} else "flags"
    lines = [line for line in text.splitlines() if line.startswith(key)]
    if not lines:
        pytest.skip(f"no {key} in /proc/cpuinfo, which is of another architecture")
    flags = set(lines[0].split(":", 1)[1].split())
    built = _backend._CORE.implementations(built=True)
    assert built[-1] == "scalar" and set(built) <= set(NEEDS)
    assert fibnim.implementations() == tuple(name for name in built if NEEDS[name] <= flags)
