# What a Debian root made by debootstrap needs of this host before fibnim's
# tests run in it, and its undoing (sourced by tools/aarch64.sh and
# tools/py314.sh, from the project root):
#   enter_root ROOT   /proc (the output routine's atomic writes link through
#                     /proc/self/fd), the host's terminals (the tests of a
#                     command on a pty), its resolver, and its trust as
#                     /etc/host-ca.crt (it may include a proxy's certificate)
#   leave_root ROOT   the mounts undone
#   scratch_root [KEPT]  $work, a scratch folder, and $root, the root: KEPT
#                     if given (a root to reuse), else $work/root; at the end,
#                     or on a stop (.ci/run ends a stage's group), the root
#                     left and the scratch folder removed
enter_root() {
    mountpoint -q "$1/proc" || mount -t proc proc "$1/proc"
    mkdir -p "$1/dev/pts"
    mountpoint -q "$1/dev/pts" || mount --bind /dev/pts "$1/dev/pts"
    [ -e "$1/dev/ptmx" ] || ln -s pts/ptmx "$1/dev/ptmx"
    cp /etc/resolv.conf "$1/etc/resolv.conf"
    cp /etc/ssl/certs/ca-certificates.crt "$1/etc/host-ca.crt"
}
leave_root() {
    umount "$1/proc" "$1/dev/pts" 2>/dev/null || true
}
scratch_root() {
    work=$(mktemp -d)
    root="${1:-$work/root}"
    trap 'leave_root "$root"; rm -rf --one-file-system "$work"' EXIT
    trap 'exit 143' TERM INT
}
