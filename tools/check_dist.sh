#!/usr/bin/env bash
# The distribution proof, as a user gets fibnim: an sdist and a wheel built from
# it; for this machine's python3, a wheel repaired by auditwheel to a manylinux
# tag, installed in a fresh environment without a compiler, and the tests of
# its compiled core run against it (tools/wheels.sh, which takes every local
# Python); a bare
# install of that wheel (no extras) running the README's first command and
# `fibnim bench --quick` without matplotlib; beside those, the sdist installed
# where no C compiler works, its suite on the pure twin, and the install that
# FIBNIM_REQUIRE_EXTENSION=1 must refuse (tools/check_pure.sh); and the wheel
# matrix cibuildwheel would build.
#
#     tools/check_dist.sh        (from the project root; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pure=
trap 'if [ -n "$pure" ]; then kill -- "-$pure" 2>/dev/null || true; wait "$pure" 2>/dev/null || true; fi
      rm -rf "$work"' EXIT

source tools/fresh_venv.sh

echo "== sdist, and a wheel built from it"
fresh_venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet build cibuildwheel
"$work/tools/bin/python" -m build --outdir "$work/dist" .
tar -tzf "$work"/dist/*.tar.gz > "$work/sdist-files.txt"
for needed in fibnim_c/_core.pyx fibnim_c/wythoff.pxi fibnim_c/simd.h fibnim_c/simd_avx2.h fibnim_c/simd_neon.h src/fibnim/py.typed tests/conftest.py; do
    grep -q "$needed" "$work/sdist-files.txt" || { echo "sdist lacks $needed" >&2; exit 1; }
done

# the pure install and its suite (one core), beside the wheel's build and suite: a
# process group of its own (setsid), so that it ends with this script
sdist=$(ls "$work"/dist/*.tar.gz)
setsid bash tools/check_pure.sh "$sdist" "$work/no-compiler" > "$work/pure.log" 2>&1 &
pure=$! pure_status=0

echo "== the wheel per Python, repaired and tested without a compiler (tools/wheels.sh)"
mkdir "$work/repaired" "$work/empty"
# what the wheel must hold, on its compiled core: the kernels' tests (those the
# aarch64 wheel runs), its backend and its declarations, and the README's
# commands through its own `fibnim` (test_doctests). The whole suite ran on the
# compiled core from source in CI's test stage, and again on the oldest and the
# newest Python; once more here took 10 of a CI run's 76 minutes.
kernel_tests=
for name in parity empty_piles zeckendorf wythoff fibonacci_nim power_nim solvers fused \
    fuzz coding text backend declarations doctests; do
    kernel_tests+="$PWD/tests/test_$name.py "
done
WHEELHOUSE="$work/repaired" PYTEST_ARGS="-k cython $kernel_tests" \
    bash tools/wheels.sh "$work"/dist/*.tar.gz python3
wheel=$(ls "$work"/repaired/*.whl)

echo "== a bare install (no extras): the README's first command, the report without plots"
fresh_venv "$work/bare"
"$work/bare/bin/python" -m pip install --quiet "$wheel"
(
    cd "$work/empty"
    "$work/bare/bin/fibnim" classify --random 10000000 --game wythoff  # the README's
    "$work/bare/bin/fibnim" bench --quick --out "$work/bench" > /dev/null
)
test -s "$work/bench/results.json" && test -s "$work/bench/report.md"
if ls "$work"/bench/*.png > /dev/null 2>&1; then echo "plots without matplotlib?" >&2; exit 1; fi

echo "== the pure install (tools/check_pure.sh, run beside the above)"
wait "$pure" || pure_status=$?
pure=
cat "$work/pure.log"
if [ "$pure_status" -ne 0 ]; then
    echo "the pure install's checks failed (exit $pure_status)" >&2
    exit 1
fi

echo "== the wheels cibuildwheel builds (pyproject.toml [tool.cibuildwheel])"
for platform in linux macos windows; do
    "$work/tools/bin/cibuildwheel" --print-build-identifiers --platform "$platform" | tr '\n' ' '
    echo
done
echo "distribution checks passed"
