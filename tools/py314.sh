#!/usr/bin/env bash
# fibnim on Python 3.14 with the newest numpy: the newest of the version
# corners (tools/versions.py has the others). Python 3.14 comes from Debian:
# a trixie root made by debootstrap, with sid's python3.14, python3.14-venv
# and python3.14-dev (and what they need) taken from sid, the rest from
# trixie; both from the archive this machine's apt uses
# (tools/debian_archive.sh). In the root, a virtual environment with the
# newest numpy and the test extras from PyPI, fibnim built from a copy of this
# checkout with its extension required, and the tests run against it.
#
#     tools/py314.sh [PYTEST ARGUMENTS]     (default: the whole suite, -k cython)
#
# Needs root (apt-get, mount, chroot), Debian's archive and PyPI; DEBIAN_MIRROR
# names another archive; PY314_ROOT=DIR keeps the root (or reuses one that
# has python3.14). .ci/run runs it beside the sanitizer build.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/debian_root.sh
. tools/debian_root.sh
scratch_root "${PY314_ROOT:-}"

if ! command -v debootstrap > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

if [ ! -x "$root/usr/bin/python3.14" ]; then
    archive="${DEBIAN_MIRROR:-$(tools/debian_archive.sh)}"
    echo "== a trixie root (debootstrap), with Python 3.14 from sid"
    if ! debootstrap --variant=minbase --include=ca-certificates,gcc,libc6-dev \
            trixie "$root" "$archive" > "$work/debootstrap.log" 2>&1; then
        tail -30 "$work/debootstrap.log" >&2
        exit 1
    fi
    echo "deb $archive sid main" > "$root/etc/apt/sources.list.d/sid.list"
    # sid's Release file is valid for days only; trixie stays preferred
    echo 'Acquire::Check-Valid-Until "false";' > "$root/etc/apt/apt.conf.d/90sid"
    printf 'Package: *\nPin: release n=sid\nPin-Priority: 100\n' \
        > "$root/etc/apt/preferences.d/sid"
    chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin DEBIAN_FRONTEND=noninteractive \
        /bin/sh -ec 'apt-get update -qq
            apt-get install -y -qq --no-install-recommends -t sid \
                python3.14 python3.14-venv python3.14-dev > /dev/null'
fi
enter_root "$root"

echo "== a copy of this checkout's sources in the root"
rm -rf "$root/fibnim"
mkdir "$root/fibnim"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$root/fibnim"

if [ $# -eq 0 ]; then set -- -k cython; fi
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/bin:/bin LANG=C.UTF-8 \
    PIP_CERT=/etc/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off \
    FIBNIM_REQUIRE_EXTENSION=1 FIBNIM_EXHAUSTIVE="${FIBNIM_EXHAUSTIVE:-}" /bin/bash -euc '
        rm -rf /venv
        python3.14 -m venv /venv
        export PATH=/venv/bin:$PATH
        pip install --quiet --upgrade pip
        pip install --quiet --only-binary=numpy --upgrade numpy
        pip install --quiet "/fibnim[test]"
        cd /tmp  # fibnim from the install, not the sources
        python -c "
import sys, numpy, fibnim
assert fibnim.backend == \"cython\" and \"site-packages\" in fibnim.__file__, fibnim.__file__
print(\"Python\", sys.version.split()[0], \"numpy\", numpy.__version__, \"fibnim\",
      fibnim.__version__, *fibnim.implementations())
"
        cd /fibnim
        python -m pytest -q -p no:cacheprovider "$@"
    ' py314 "$@"
