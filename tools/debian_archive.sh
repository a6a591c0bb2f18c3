#!/bin/sh
# The Debian archive this machine's apt takes its own release from (the
# URIs: of its sources entry, in either sources format), printed without the
# trailing slash: the tools that build other roots (tools/aarch64.sh) take
# their packages from the archive the machine already trusts, and no host is
# named in the project. Exits 1, saying why, where apt has no such entry.
#
#     tools/debian_archive.sh            e.g. for debootstrap SUITE ROOT "$(tools/debian_archive.sh)"
set -eu
release=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
uri=""
if [ -n "$release" ] && command -v apt-get > /dev/null; then
    uri=$(apt-get indextargets --format '$(REPO_URI)' "Release: $release" 'Identifier: Packages' \
          2> /dev/null | head -n 1)
fi
if [ -z "$uri" ]; then
    echo "debian_archive.sh: apt has no source of Debian's ${release:-(unknown release)} here" \
         "(/etc/apt/sources.list, /etc/apt/sources.list.d); set DEBIAN_MIRROR to an archive" >&2
    exit 1
fi
printf '%s\n' "${uri%/}"
