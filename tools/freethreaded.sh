#!/usr/bin/env bash
# fibnim on free-threaded CPython 3.13 (3.13t, the GIL off). CPython is built
# with --disable-gil from Debian trixie's python3.13 source, whose orig tarball
# is the upstream one, fetched from the archive this machine's apt uses
# (tools/debian_archive.sh). From PyPI: numpy below 2.5, the last with cp313t
# wheels (2.5 builds from source for some 18 minutes), Cython, and hypothesis
# 6.150, the last that installs as pure Python there (later ones need a Rust
# build). fibnim is built from this checkout with its extension required.
#
# Importing it must leave the GIL off: a module not declared free-threading
# compatible turns it back on, with a RuntimeWarning. The tests then run with
# that warning an error: the many-threads tests, the kernels' parity on every
# implementation, the ufuncs and the games' kernels.
#
#     tools/freethreaded.sh [PYTEST ARGUMENTS]   (default: those tests, -k cython)
#
# Needs Debian's archive and PyPI, a C compiler and the headers CPython builds
# with (libssl-dev, zlib1g-dev, libffi-dev: installed with apt-get where
# missing); FT_PYTHON=DIR keeps (or reuses)
# the built CPython.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf --one-file-system "$work"' EXIT
trap 'exit 143' TERM INT  # the cleanup on a stop too
prefix="${FT_PYTHON:-$work/python}"
python="$prefix/bin/python3.13t"

if [ ! -x "$python" ]; then
    missing=()
    for package in libssl-dev zlib1g-dev libffi-dev; do
        dpkg -s "$package" > /dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "== apt-get install ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
    echo "== CPython 3.13 built with --disable-gil, from Debian trixie's python3.13 source"
    apt_dir="$work/apt"  # apt's lists and cache of this one source line, apart from the machine's
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts" \
        "$work/source"
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
        "$(tools/debian_archive.sh) trixie main" > "$apt_dir/sources.list"
    apt_options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
                 -o "Dir::Etc::SourceParts=$apt_dir/parts"
                 -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
    apt-get "${apt_options[@]}" update -qq
    (cd "$work/source" && apt-get "${apt_options[@]}" source --download-only -qq python3.13 \
        2> >(grep -v 'unsandboxed as root' >&2))
    tar -xf "$work"/source/python3.13_*.orig.tar.xz -C "$work/source"
    if ! (cd "$work"/source/Python-3.13.*/ \
            && ./configure --disable-gil --prefix="$prefix" > "$work/build.log" 2>&1 \
            && make -j"$(nproc)" >> "$work/build.log" 2>&1 \
            && make altinstall >> "$work/build.log" 2>&1); then
        tail -40 "$work/build.log" >&2
        exit 1
    fi
fi

echo "== $("$python" -VV), numpy, Cython and the test tools from PyPI"
"$python" -m venv "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "numpy>=2,<2.5" "cython>=3.1" setuptools wheel "pytest>=8" \
    "hypothesis==6.150.*"

echo "== fibnim built from this checkout, its extension required"
export FIBNIM_REQUIRE_EXTENSION=1
python -m pip install --quiet --no-build-isolation .
python -W error::RuntimeWarning - <<'EOF'
import sys

import fibnim

assert fibnim.backend == "cython", fibnim.backend
assert not sys._is_gil_enabled(), "importing fibnim turned the GIL on"
print("the GIL is off with fibnim imported; implementations:", *fibnim.implementations())
EOF

echo "== the tests, the GIL off"
copy="$work/tests"  # the tests alone: fibnim comes from the installed wheel, not src/
cp -r tests "$copy"
cp pyproject.toml "$work/"
if [ $# -eq 0 ]; then
    set -- tests/test_threads.py tests/test_parity.py tests/test_ufuncs.py \
        tests/test_implementations.py tests/test_wythoff.py tests/test_zeckendorf.py \
        tests/test_fibonacci_nim.py -k cython
fi
cd "$work"
python -m pytest -p no:cacheprovider -W error::RuntimeWarning -q "$@"
