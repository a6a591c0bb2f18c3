#!/usr/bin/env bash
# The portable build: the scalar implementation alone (FIBNIM_NO_SIMD) and the
# plain-C 128-bit multiply (FIBNIM_PORTABLE_MUL), built in a fresh virtual
# environment, and the tests of what those switches change: the kernels, the
# fuzz and strided ones among them, on the compiled core (the pure twin is the
# same in every build). .ci/run runs it beside its other builds.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the portable build: the scalar implementation alone, the plain-C 128-bit multiply"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
rm -rf build  # no objects of another build may slip into this one
FIBNIM_NO_SIMD=1 FIBNIM_PORTABLE_MUL=1 "$work/venv/bin/python" -m pip install --quiet ".[test]"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider -k cython \
    tests/test_zeckendorf.py tests/test_wythoff.py tests/test_fibonacci_nim.py \
    tests/test_power_nim.py tests/test_solvers.py tests/test_parity.py \
    tests/test_properties.py tests/test_safety.py tests/test_fuzz.py tests/test_fused.py \
    tests/test_text.py
