#!/usr/bin/env bash
# The distribution proof, as a user gets fibnim: an sdist and a wheel built from
# it; for this machine's python3, a wheel repaired by auditwheel to a manylinux
# tag, installed in a fresh environment without a compiler, and the whole test
# suite run against it (tools/wheels.sh, which takes every local Python); a bare
# install of that wheel (no extras) running the README's first command and
# `fibnim bench --quick` without matplotlib; a pure-Python install (FIBNIM_PURE_PYTHON=1) and the suite on it,
# timed; and the wheel matrix cibuildwheel would build.
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
for needed in fibnim_c/_scalar.pxd fibnim_c/_simd.pxd src/fibnim/py.typed tests/conftest.py; do
    grep -q "$needed" "$work/sdist-files.txt" || { echo "sdist lacks $needed" >&2; exit 1; }
done

echo "== the wheel per Python, repaired and tested without a compiler (tools/wheels.sh)"
mkdir "$work/repaired" "$work/empty"
WHEELHOUSE="$work/repaired" bash tools/wheels.sh "$work"/dist/*.tar.gz python3
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

echo "== a pure-Python install (from the sdist) and the suite on it"
fresh_venv "$work/pure"
sdist=$(ls "$work"/dist/*.tar.gz)
FIBNIM_PURE_PYTHON=1 "$work/pure/bin/python" -m pip install --quiet "$sdist[test]"
(
    cd "$work/empty"
    unset FIBNIM_REQUIRE_EXTENSION  # this install has no extension, by design
    "$work/pure/bin/python" -c 'import fibnim; assert fibnim.backend == "python"; print("pure:", fibnim.backend)'
    start=$(date +%s)
    "$work/pure/bin/python" -m pytest "$root/tests" -p no:cacheprovider -q
    echo "the pure install's tests took $(( $(date +%s) - start )) s"
)

echo "== the wheels cibuildwheel builds (pyproject.toml [tool.cibuildwheel])"
for platform in linux macos windows; do
    "$work/tools/bin/cibuildwheel" --print-build-identifiers --platform "$platform" | tr '\n' ' '
    echo
done
echo "distribution checks passed"
