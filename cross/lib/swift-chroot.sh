#!/usr/bin/env bash
# Debian's own Swift toolchain (sid's swiftlang) in a cached amd64 Debian sid chroot: the compiler
# that cross-builds the arm64 package (cross/README.md). swiftlang needs sid's glibc, so it cannot
# run on a bookworm or trixie host directly.
#
#   cross/lib/swift-chroot.sh setup          creates the chroot once and prints its path
#   cross/lib/swift-chroot.sh version        prints the chroot's swiftlang version (sets it up first)
#   cross/lib/swift-chroot.sh run CMD [ARG…] runs CMD in the chroot, in the current directory
#
# The chroot lives in the cross cache ($BLESENSOR_CROSS_CACHE, default /var/cache/blesensor-cross),
# keyed by sid's swiftlang version, the package list and this script; a new key builds a new
# chroot and deletes the old one. `run` mounts /dev, /proc, this checkout, the cross cache and the
# git mirrors the host's git config points github.com at, each at its own path, in a private mount
# namespace: the mounts end with the command, so nothing is left mounted under the cache.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
log() { echo "swift-chroot: $*" >&2; }
die() { log "$*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot and mounts): run it with sudo"
# shellcheck source=cross/lib/debian-archive.sh
source "$here/debian-archive.sh"

# Mounts what a build needs inside ROOT, then runs the command chrooted, all in a new mount
# namespace so that the mounts vanish with it, whatever happens.
enter() { # ROOT CMD…
    local root=$1
    shift
    local binds=("$repo" "$cross_cache") mirror
    while read -r mirror; do
        [[ -d $mirror ]] && binds+=("$mirror")
    done < <(git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | sed -E 's/^url\.(.*)\.insteadof .*/\1/I' | sort -u)
    # The rewrite rules themselves, so that SwiftPM inside resolves from the same mirrors.
    { git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null |
        sed -E 's/^url\.(.*)\.insteadof (.*)$/[url "\1"]\n\tinsteadOf = \2/I'
      printf '[safe]\n\tdirectory = *\n'; } > "$root/etc/gitconfig"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    unshare --mount --propagation private -- /bin/bash -euo pipefail -c '
        root=$1 count=$2
        shift 2
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev"
        mount -t sysfs sysfs "$root/sys"
        for ((i = 0; i < count; i++)); do
            mkdir -p "$root$1"
            mount --bind "$1" "$root$1"
            shift
        done
        exec chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root \
            LANG=C.UTF-8 TERM="${TERM:-dumb}" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$@"
    ' enter "$root" "${#binds[@]}" "${binds[@]}" "$PWD" "$@"
}

# The chroot for the current sid swiftlang, built if missing; prints its root.
setup() {
    archive_init sid amd64
    local swift_version gcc_major packages key root work
    swift_version=$(archive_version swiftlang)
    [[ -n $swift_version ]] || die "Debian sid has no swiftlang for amd64 now: the arm64 build cannot be set up"
    gcc_major=$(archive_depends gcc | sed -n 's/^gcc-\([0-9]*\)$/\1/p' | head -n1)
    [[ -n $gcc_major ]] || die "cannot tell sid's default GCC from its gcc package"
    # libc6-dev and libstdc++-N-dev: without them every package manifest fails to link (no Scrt1.o).
    # qemu-user: runs the arm64 test bundle (its qemu-aarch64 understands sid glibc's TCSETS2).
    packages="swiftlang git ca-certificates libc6-dev libstdc++-$gcc_major-dev pkg-config qemu-user"
    key=$( { echo "$swift_version $packages $debian_mirror"; cat "$here/swift-chroot.sh"; } | sha256sum | cut -c1-12)
    root=$cross_cache/swift-chroot-$swift_version-$key
    if [[ -f $root/.blesensor-ready ]]; then
        echo "$root"
        return
    fi
    command -v debootstrap >/dev/null || die "debootstrap is missing: run scripts/install-deps.sh"
    log "building the sid chroot with swiftlang $swift_version ($packages) in $root"
    local started
    started=$(date +%s)
    mkdir -p "$cross_cache"
    work=$(mktemp -d "$cross_cache/swift-chroot-build.XXXXXX")
    trap 'rm -rf --one-file-system "$work"' EXIT
    # In a private mount namespace: the /proc and /sys debootstrap mounts cannot outlive it.
    if ! unshare --mount --propagation private -- debootstrap --variant=minbase sid "$work/root" "$debian_mirror" \
            > "$work/debootstrap.log" 2>&1; then
        tail -n 30 "$work/debootstrap.log" >&2
        die "debootstrap of sid failed (log above)"
    fi
    echo 'Acquire::Check-Valid-Until "false";' > "$work/root/etc/apt/apt.conf.d/99blesensor-no-valid-until"
    if ! enter "$work/root" /usr/bin/env DEBIAN_FRONTEND=noninteractive /bin/sh -c \
            "apt-get -qq update && apt-get install -y -qq --no-install-recommends $packages && apt-get clean" \
            > "$work/apt.log" 2>&1; then
        tail -n 30 "$work/apt.log" >&2
        die "installing $packages in the sid chroot failed (log above)"
    fi
    enter "$work/root" swift --version 2>&1 | grep -q "Swift version" || die "swift does not run in the new chroot"
    touch "$work/root/.blesensor-ready"
    mv "$work/root" "$root"
    rm -rf --one-file-system "$work"
    trap - EXIT
    # Older chroots: their mounts only ever existed in finished namespaces, so removing them is safe.
    local old
    for old in "$cross_cache"/swift-chroot-*; do
        [[ $old == "$root" || ! -d $old ]] || { log "removing the old chroot $old"; rm -rf --one-file-system "$old"; }
    done
    log "built in $(( $(date +%s) - started )) s"
    echo "$root"
}

case ${1:-} in
    setup) setup ;;
    version)
        root=$(setup)
        enter "$root" dpkg-query -W -f='${Version}' swiftlang ;;
    run)
        shift
        (($#)) || die "run needs a command"
        root=$(setup)
        enter "$root" "$@" ;;
    *) sed -n '6,9s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
