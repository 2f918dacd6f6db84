#!/usr/bin/env bash
# Builds (or reuses) the pristine Debian root filesystem of the boot test and prints the path of
# its cached tarball on stdout.
#
#   Tests/Boot/build-rootfs.sh [CACHE_DIR [ARCH]]   (default: .build-vm at the repository root, amd64)
#
#   amd64  bookworm, rootfs-packages.txt; the boot uses the host's kernel (linux-image-amd64)
#   arm64  trixie, rootfs-packages-trixie-arm64.txt, debootstrapped through binfmt_misc and
#          qemu-user-static (cross/lib/binfmt-arm64.sh), plus Debian's arm64 kernel with a small
#          initrd (virtio disk and ext4 only) in /boot, which the boot uses
#
# The tarball is keyed by a hash of the package list, this script, the mirror, the suite and the
# architecture: a change to any of them, or a tarball older than BOOT_TEST_ROOTFS_MAX_AGE_DAYS (7),
# rebuilds it, so a fresh CI machine builds it once and local reruns reuse it. The mirror is the
# host's own Debian mirror (its apt sources) when it serves the suite, else deb.debian.org, or
# BOOT_TEST_MIRROR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${1:-$repo/.build-vm}
arch=${2:-amd64}
max_age_days=${BOOT_TEST_ROOTFS_MAX_AGE_DAYS:-7}

log() { echo "build-rootfs: $*" >&2; }
die() { log "$*"; exit 1; }

case $arch in
    amd64) suite=bookworm package_list=$here/rootfs-packages.txt name=rootfs-bookworm ;;
    arm64) suite=trixie package_list=$here/rootfs-packages-trixie-arm64.txt name=rootfs-trixie-arm64 ;;
    *) die "unsupported architecture '$arch': amd64 or arm64" ;;
esac

[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap and chroot): run it with sudo"
command -v debootstrap >/dev/null || die "debootstrap is missing: run scripts/install-deps.sh"
if [[ $arch == arm64 ]]; then
    # arm64 programs in the chroot run through qemu-user-static (the F flag: no binary in the chroot).
    "$repo/cross/lib/binfmt-arm64.sh" >&2
fi

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

packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$package_list" | tr -d ' \t' | paste -sd, -)
key=$( { cat "$package_list" "$here/build-rootfs.sh"; echo "$mirror $suite $arch"; } | sha256sum | cut -c1-16)
tarball=$cache/$name-$key.tar

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

# arm64: Debian's kernel in /boot and /usr/lib/modules of the image, which the boot uses (the amd64
# boot uses the host's). Its initrd only has to find the root filesystem: the virtio disk and ext4
# (MODULES=list), so it is built in seconds and unpacked quickly under TCG; everything else is
# loaded from the root filesystem by udev and modprobe. Drivers no emulated machine here has (sound,
# GPUs, media, Wi-Fi, Ethernet, InfiniBand) are left out of the image, as on amd64.
install_arm64_kernel() {
    local kver dir
    cat >"$target/etc/initramfs-tools/conf.d/boot-test" <<'CONF'
# The boot test's initrd: only what mounts the root filesystem (modules listed in ../modules).
MODULES=list
CONF
    printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic >>"$target/etc/initramfs-tools/modules"
    # apt in the chroot downloads the kernel: the host's resolver, for this step only.
    local had_resolv=no
    [[ -e $target/etc/resolv.conf || -L $target/etc/resolv.conf ]] && had_resolv=yes
    [[ $had_resolv == no ]] && cp /etc/resolv.conf "$target/etc/resolv.conf"
    mount -t proc proc "$target/proc"
    mount -t sysfs sysfs "$target/sys"
    mount --bind /dev "$target/dev"
    mount --bind /dev/pts "$target/dev/pts"
    log "installing linux-image-arm64 in the arm64 root filesystem"
    if ! chroot "$target" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends linux-image-arm64 \
            >"$work/kernel.log" 2>&1; then
        tail -n 30 "$work/kernel.log" >&2
        die "installing linux-image-arm64 failed (log above)"
    fi
    kver=$(ls -1 "$target"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | sort -V | tail -n 1)
    [[ -n $kver && -f $target/boot/initrd.img-$kver && -d $target/usr/lib/modules/$kver ]] \
        || die "linux-image-arm64 left no vmlinuz, initrd.img and modules of one version in the image"
    build_missing_modules "$kver"
    umount "$target/dev/pts" "$target/dev" "$target/sys" "$target/proc"
    [[ $had_resolv == no ]] && rm -f "$target/etc/resolv.conf"
    for dir in sound drivers/gpu drivers/media drivers/net/wireless drivers/net/ethernet drivers/infiniband; do
        rm -rf "$target/usr/lib/modules/$kver/kernel/$dir"
    done
    chroot "$target" depmod -a "$kver"
    log "kernel $kver: $(du -h "$target/boot/vmlinuz-$kver" | cut -f1) vmlinuz, $(du -h "$target/boot/initrd.img-$kver" | cut -f1) initrd"
}

# Debian's arm64 kernel leaves out two drivers its amd64 kernel builds as modules and the boot test
# needs: i2c-stub (CONFIG_I2C_STUB, the TMP102's bus) and hci_vhci (CONFIG_BT_HCIVHCI, btvirt's
# controllers). Both are built here out of tree from the same version's linux-source, against its
# linux-headers, with the image's own gcc (run by qemu-user), into /usr/lib/modules/KVER/updates;
# the compiler and headers are purged again. Unsigned, so loading them taints the kernel (Debian's
# kernel does not enforce signatures outside Secure Boot).
build_missing_modules() {
    local kver=$1 series version build=/tmp/boot-test-modules
    series=$(cut -d. -f1,2 <<<"$kver")
    version=$(chroot "$target" dpkg-query -W -f='${Version}' "linux-image-$kver")
    log "building i2c-stub and hci_vhci for $kver from linux-source-$series $version"
    if ! chroot "$target" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            make "linux-headers-$kver" >>"$work/kernel.log" 2>&1; then
        tail -n 30 "$work/kernel.log" >&2
        die "installing linux-headers-$kver failed (log above)"
    fi
    mkdir -p "$target$build"
    chroot "$target" sh -c "cd $build && apt-get download -q linux-source-$series=$version" >>"$work/kernel.log" 2>&1 \
        || { tail -n 10 "$work/kernel.log" >&2; die "downloading linux-source-$series $version failed"; }
    dpkg-deb --fsys-tarfile "$target$build/linux-source-${series}_${version}_all.deb" \
        | tar -xO "./usr/src/linux-source-$series.tar.xz" \
        | tar -xJ -C "$target$build" --strip-components=3 \
            "linux-source-$series/drivers/i2c/i2c-stub.c" "linux-source-$series/drivers/bluetooth/hci_vhci.c"
    echo 'obj-m := i2c-stub.o hci_vhci.o' >"$target$build/Kbuild"
    if ! chroot "$target" make -C "/usr/src/linux-headers-$kver" M="$build" modules >>"$work/kernel.log" 2>&1; then
        tail -n 30 "$work/kernel.log" >&2
        die "building i2c-stub and hci_vhci failed (log above)"
    fi
    install -d "$target/usr/lib/modules/$kver/updates"
    install -m 0644 "$target$build/i2c-stub.ko" "$target$build/hci_vhci.ko" "$target/usr/lib/modules/$kver/updates/"
    rm -rf "$target$build"
    chroot "$target" env DEBIAN_FRONTEND=noninteractive apt-get purge -y --autoremove make "linux-headers-$kver" \
        >>"$work/kernel.log" 2>&1 || { tail -n 30 "$work/kernel.log" >&2; die "purging the module build's packages failed"; }
}

log "debootstrap $suite (minbase + $packages) from $mirror"
started=$(date +%s)
if ! debootstrap --variant=minbase --arch="$arch" --include="$packages" "$suite" "$target" "$mirror" \
        >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    [[ -f $target/debootstrap/debootstrap.log ]] && tail -n 30 "$target/debootstrap/debootstrap.log" >&2
    die "debootstrap failed (log above)"
fi
if [[ $arch == arm64 ]]; then install_arm64_kernel; fi
# Without package lists apt resolves the per-run `apt install ./blesensor_*.deb` against the installed
# packages only: it never downloads, and a dependency missing here is an error naming it.
chroot "$target" apt-get clean
rm -rf "$target"/var/lib/apt/lists/*
tar --numeric-owner --xattrs --xattrs-include='*' -C "$target" -cf "$work/rootfs.tar" .
rm -f "$cache"/$name-*.tar
mv "$work/rootfs.tar" "$tarball"
log "built $tarball ($(du -h "$tarball" | cut -f1)) in $(( $(date +%s) - started )) s"
echo "$tarball"
