#!/usr/bin/env bash
# Builds (or reuses) the pristine Debian bookworm root filesystem of the boot test and prints the
# path of its cached tarball on stdout.
#
#   Tests/Boot/build-rootfs.sh [CACHE_DIR]      (default: .build-vm at the repository root)
#
# The tarball is keyed by a hash of rootfs-packages.txt, this script, the mirror and the suite: a
# change to any of them, or a tarball older than BOOT_TEST_ROOTFS_MAX_AGE_DAYS (7), rebuilds it,
# so a fresh CI machine builds it once and local reruns reuse it. The mirror is the host's own
# Debian mirror (its apt sources), or BOOT_TEST_MIRROR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${1:-$repo/.build-vm}
suite=bookworm
max_age_days=${BOOT_TEST_ROOTFS_MAX_AGE_DAYS:-7}

log() { echo "build-rootfs: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap and chroot): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap is missing: run scripts/install-deps.sh"

# The first Debian mirror in the host's apt sources that serves $suite (deb822 or one-line format).
host_mirror() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] || continue
        awk -v suite="$suite" '
            /^[[:space:]]*$/ { if (uri != "" && has) { print uri; exit } uri = ""; has = 0; next }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
            END { if (uri != "" && has) print uri }' "$file"
    done
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f $file ]] || continue
        awk -v suite="$suite" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i == suite) { print $(i - 1); exit } }' "$file" \
            | sed 's/^\[.*\]$//'
    done
}
mirror=${BOOT_TEST_MIRROR:-$(host_mirror | grep -m1 . || true)}
mirror=${mirror:-http://deb.debian.org/debian}

packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/rootfs-packages.txt" | tr -d ' \t' | paste -sd, -)
key=$( { cat "$here/rootfs-packages.txt" "$here/build-rootfs.sh"; echo "$mirror $suite amd64"; } | sha256sum | cut -c1-16)
tarball=$cache/rootfs-$suite-$key.tar

if [[ -f $tarball ]]; then
    if [[ -z $(find "$tarball" -mtime "+$((max_age_days - 1))" -print) ]]; then
        log "reusing $tarball"
        echo "$tarball"
        exit 0
    fi
    log "$tarball is older than $max_age_days days: rebuilding"
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/rootfs-build.XXXXXX")
target=$work/root
# debootstrap mounts /proc and /sys in the target and an interrupted run can leave them (or a
# bind mount) behind: unmount whatever is still mounted under the work directory, deepest first.
cleanup() {
    local mount
    for mount in $(awk -v root="$work/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount -l "$mount" || log "could not unmount $mount"
    done
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap (bash skips EXIT traps on a fatal signal otherwise).
trap 'exit 130' INT TERM HUP

log "debootstrap $suite (minbase + $packages) from $mirror"
started=$(date +%s)
if ! debootstrap --variant=minbase --arch=amd64 --include="$packages" "$suite" "$target" "$mirror" \
        >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    [[ -f $target/debootstrap/debootstrap.log ]] && tail -n 30 "$target/debootstrap/debootstrap.log" >&2
    die "debootstrap failed (log above)"
fi
# Without package lists apt resolves the per-run `apt install ./blesensor_*.deb` against the installed
# packages only: it never downloads, and a dependency missing here is an error naming it.
chroot "$target" apt-get clean
rm -rf "$target"/var/lib/apt/lists/*
tar --numeric-owner --xattrs --xattrs-include='*' -C "$target" -cf "$work/rootfs.tar" .
rm -f "$cache"/rootfs-$suite-*.tar
mv "$work/rootfs.tar" "$tarball"
log "built $tarball ($(du -h "$tarball" | cut -f1)) in $(( $(date +%s) - started )) s"
echo "$tarball"
