"""The `fibnim` command, run as a user runs it."""

from __future__ import annotations

import subprocess
import sys


def fibnim(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "fibnim", *arguments], capture_output=True, text=True, check=False
    )


def test_encode():
    result = fibnim("encode", "46", "8")
    assert result.returncode == 0, result.stderr
    assert "46 = 34 + 8 + 3 + 1" in result.stdout
    assert "code              149 = 0b10010101" in result.stdout
    assert "silber            100101010" in result.stdout
    assert "second canonical  10101" in result.stdout  # of 8


def test_decode():
    result = fibnim("decode", "149", "0b10000")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["149", "46", "16", "8"]


def test_errors_are_messages_not_tracebacks():
    result = fibnim("decode", "3")
    assert result.returncode == 1
    assert (
        "code = 3 has two adjacent set bits" in result.stderr and "Traceback" not in result.stderr
    )
    result = fibnim("encode", "-3")
    assert result.returncode == 2 and "-3 is negative" in result.stderr
    result = fibnim("encode", "4.5")
    assert result.returncode == 2 and "not an integer" in result.stderr
