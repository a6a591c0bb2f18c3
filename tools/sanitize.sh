#!/usr/bin/env bash
# The compiled kernels under AddressSanitizer and UndefinedBehaviorSanitizer: a
# fresh environment, the extension built with FIBNIM_SANITIZE=1, and the kernel
# tests (the fuzz test and the strided differential tests among them) run with
# the ASan runtime preloaded into the interpreter (the ufuncs' loops, strided,
# cast and failing, among them). Any finding stops the run.
#
#     tools/sanitize.sh [pytest arguments]     (from the project root; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
echo "== the extension with -fsanitize=address,undefined"
# from a copy of the sources: objects of another build (build/) must not be reused
mkdir "$work/src"
cp -r pyproject.toml setup.py MANIFEST.in README.md LICENSE src fibnim_c "$work/src/"
rm -rf "$work/src/src/fibnim"/*.so
FIBNIM_SANITIZE=1 FIBNIM_REQUIRE_EXTENSION=1 \
    "$work/venv/bin/python" -m pip install --quiet --no-cache-dir "$work/src[test]"

for module in "$work"/venv/lib/python*/site-packages/fibnim/_*.so; do
    # ldd's whole output first: grep -q would close the pipe at the first match, and
    # ldd's SIGPIPE then fails the pipeline under pipefail (it did once in CI)
    libraries=$(ldd "$module")
    grep -q libasan <<< "$libraries" || { echo "$module: not built with ASan" >&2; exit 1; }
done
runtime=$(${CC:-gcc} -print-file-name=libasan.so)
test -e "$runtime" || { echo "no ASan runtime at $runtime" >&2; exit 1; }
mkdir "$work/empty"
cd "$work/empty"
echo "== kernel tests, ASan runtime $runtime"
# CPython keeps some memory to the end on purpose: leak reports would be noise;
# --capture=sys leaves file descriptor 2 alone, so that a finding, which ends the
# process inside a test, is printed (pytest's fd capture would take it along)
LD_PRELOAD="$runtime" \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
FIBNIM_REQUIRE_EXTENSION=1 \
    "$work/venv/bin/python" -m pytest -q --capture=sys -p no:cacheprovider \
    "$root/tests/test_zeckendorf.py" "$root/tests/test_wythoff.py" \
    "$root/tests/test_fibonacci_nim.py" "$root/tests/test_power_nim.py" \
    "$root/tests/test_solvers.py" "$root/tests/test_parity.py" \
    "$root/tests/test_safety.py" "$root/tests/test_fuzz.py" "$root/tests/test_fused.py" \
    "$root/tests/test_ufuncs.py" "$root/tests/test_declarations.py" \
    "$root/tests/test_coding.py" "$@"
echo "sanitizer run passed"
