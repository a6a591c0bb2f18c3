#!/usr/bin/env bash
# The sdist installed where no C compiler works (CC names a missing one): the
# install completes with the pure twin, says so in its build log and at import,
# and the tests that prove such an install pass on it (timed); with
# FIBNIM_REQUIRE_EXTENSION=1 the same install fails. tools/check_dist.sh runs it beside the wheel's checks.
#
#     tools/check_pure.sh SDIST WORKDIR     (WORKDIR: new, empty or absent)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sdist=$1
work=$2
mkdir -p "$work/empty"

source tools/fresh_venv.sh

echo "== the sdist without a working C compiler: the pure twin, said so, and the suite on it"
fresh_venv "$work/pure"
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
    # the whole suite runs on the pure twin in CI's test stage (every test on
    # both backends); here, what an install without the core must hold: the
    # backend it says, each game and classify, the text kernel's twin, and the
    # README's commands (test_doctests) through this install's `fibnim`
    "${no_compiler[@]}" "$work/pure/bin/python" -m pytest -p no:cacheprovider -q \
        "$root"/tests/test_{backend,declarations,zeckendorf,wythoff,fibonacci_nim}.py \
        "$root"/tests/test_{power_nim,classify,text,doctests}.py
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
