#!/usr/bin/env bash
# The distribution proof, as a user gets fibnim: an sdist and a wheel built from
# it; for this machine's python3, a wheel repaired by auditwheel to a manylinux
# tag, installed in a fresh environment without a compiler, and the tests of
# its compiled core run against it (tools/wheels.sh, which takes every local
# Python); a bare
# install of that wheel (no extras) running the README's first command and
# `fibnim bench --quick` without matplotlib; the sdist installed where no C
# compiler works (CC names a missing one): the install completes with the pure
# twin, says so in its build log and at import, and the suite passes on it
# (timed), while FIBNIM_REQUIRE_EXTENSION=1 makes the same install fail; and
# the wheel matrix cibuildwheel would build.
#
#     tools/check_dist.sh        (from the project root; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fresh_venv() {  # fresh_venv DIR: a new virtual environment with an up-to-date pip
    python3 -m venv "$1"
    "$1/bin/python" -m pip install --quiet --upgrade pip
}

echo "== sdist, and a wheel built from it"
fresh_venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet build cibuildwheel
"$work/tools/bin/python" -m build --outdir "$work/dist" .
tar -tzf "$work"/dist/*.tar.gz > "$work/sdist-files.txt"
for needed in fibnim_c/_core.pyx fibnim_c/wythoff.pxi fibnim_c/simd.h fibnim_c/simd_avx2.h src/fibnim/py.typed tests/conftest.py; do
    grep -q "$needed" "$work/sdist-files.txt" || { echo "sdist lacks $needed" >&2; exit 1; }
done

echo "== the wheel per Python, repaired and tested without a compiler (tools/wheels.sh)"
mkdir "$work/repaired" "$work/empty"
# the wheel's tests on its compiled core: the pure twin's run below, from the
# same sdist, covers the rest (and keeps .ci/run under 30 minutes)
WHEELHOUSE="$work/repaired" PYTEST_ARGS="-k cython" bash tools/wheels.sh "$work"/dist/*.tar.gz python3
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

echo "== the sdist without a working C compiler: the pure twin, said so, and the suite on it"
fresh_venv "$work/pure"
sdist=$(ls "$work"/dist/*.tar.gz)
no_compiler=(env -u FIBNIM_REQUIRE_EXTENSION -u FIBNIM_PURE_PYTHON CC=/nonexistent/cc)
"${no_compiler[@]}" "$work/pure/bin/python" -m pip install --no-cache-dir -v "$sdist[test]" \
    > "$work/pure-build.log" 2>&1 || { tail -30 "$work/pure-build.log"; exit 1; }
grep -q "fibnim's compiled core could not be built" "$work/pure-build.log" \
    || { echo "the build log does not say that the compiled core was left out" >&2; exit 1; }
(
    cd "$work/empty"
    # the kernels load at fibnim's first use (import fibnim itself is lazy)
    warning=$("${no_compiler[@]}" "$work/pure/bin/python" -c 'import fibnim; fibnim.encode(1)' 2>&1)
    grep -q "fibnim's compiled core is not available" <<< "$warning" \
        || { echo "using fibnim without its core gave no RuntimeWarning" >&2; exit 1; }
    "${no_compiler[@]}" "$work/pure/bin/python" -c \
        'import fibnim; assert fibnim.backend == "python"; print("no compiler:", fibnim.backend)'
    start=$(date +%s)
    "${no_compiler[@]}" "$work/pure/bin/python" -m pytest "$root/tests" -p no:cacheprovider -q
    echo "the pure install's tests took $(( $(date +%s) - start )) s"
)
echo "== the same with FIBNIM_REQUIRE_EXTENSION=1: the install must fail"
fresh_venv "$work/required"
if env -u FIBNIM_PURE_PYTHON CC=/nonexistent/cc FIBNIM_REQUIRE_EXTENSION=1 \
    "$work/required/bin/python" -m pip install --no-cache-dir --quiet "$sdist" > /dev/null 2>&1; then
    echo "FIBNIM_REQUIRE_EXTENSION=1 installed fibnim without its compiled core" >&2
    exit 1
fi
echo "refused, as asked"

echo "== the wheels cibuildwheel builds (pyproject.toml [tool.cibuildwheel])"
for platform in linux macos windows; do
    "$work/tools/bin/cibuildwheel" --print-build-identifiers --platform "$platform" | tr '\n' ' '
    echo
done
echo "distribution checks passed"
