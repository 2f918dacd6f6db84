#!/usr/bin/env bash
# Makes the boot test's disk image: the cached root filesystem, the package installed with apt as a
# user would, the one-line config change, the test's user and units, and the kernel's modules.
#
#   Tests/Boot/prepare-image.sh ROOTFS_TAR DEB KERNEL_VERSION WORK_DIR
#
# Writes WORK_DIR/disk.img (ext4, made from the tree with mke2fs -d: no loop mount). WORK_DIR/root
# is the tree; it is removed again on success. Every mount this script makes is undone on exit.
set -euo pipefail

rootfs_tar=$1 deb=$2 kver=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$work/root

log() { echo "prepare-image: $*" >&2; }
die() { log "$*"; exit 1; }

unmount_all() {
    local mount
    for mount in $(awk -v root="$root/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r); do
        umount "$mount" 2>/dev/null || umount -l "$mount" || log "could not unmount $mount"
    done
}
trap unmount_all EXIT
# A signal ends the script through its EXIT trap (bash skips EXIT traps on a fatal signal otherwise).
trap 'exit 130' INT TERM HUP

[[ -f $deb ]] || die "no package at $deb"
[[ -d /lib/modules/$kver ]] || die "no /lib/modules/$kver: install linux-image-amd64 (scripts/install-deps.sh)"

rm -rf --one-file-system "$root"
mkdir -p "$root"
tar --numeric-owner --xattrs --xattrs-include='*' -C "$root" -xf "$rootfs_tar"

# apt inside the image, as a user would install it. The image has no package lists, so apt resolves
# the package's dependencies against what is installed and never downloads. No init runs in a
# chroot: policy-rc.d keeps maintainer scripts from starting services.
cp "$deb" "$root/tmp/"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
if ! chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
        "/tmp/$(basename "$deb")" >"$work/apt.log" 2>&1; then
    cat "$work/apt.log" >&2
    die "apt-get install of $(basename "$deb") failed in the image (log above); a missing dependency belongs in Tests/Boot/rootfs-packages.txt"
fi
log "installed $(basename "$deb"): $(grep -E '^(Setting up blesensor|Created symlink)' "$work/apt.log" | tr '\n' ' ')"
rm -f "$root/tmp/$(basename "$deb")" "$root/usr/sbin/policy-rc.d"

# The one line a user edits: the simulated board's sensors, the real controller hci0.
config=$root/etc/blesensor/blesensor.yaml
[[ -f $config ]] || die "the package installed no $config"
sed -i -E 's/^board:.*/board: simulated/' "$config"
if grep -qE '^transport:' "$config"; then
    sed -i -E 's/^transport:.*/transport: hci:0/' "$config"
else
    echo "transport: hci:0" >>"$config"
fi
if ! check=$(chroot "$root" blesensor config check /etc/blesensor/blesensor.yaml 2>&1); then
    die "the edited config does not pass blesensor config check: $check"
fi
log "$(tr '\n' ' ' <<<"$check")"

# A user who may talk to the daemon through its group, and one (nobody) who may not.
chroot "$root" useradd --create-home --groups blesensor --shell /bin/bash tester

# The test's units and scripts.
install -d "$root/usr/local/lib/boot-test"
install -m 0755 "$here"/guest/*.sh "$root/usr/local/lib/boot-test/"
install -m 0644 "$here"/guest/*.service "$root/etc/systemd/system/"
chroot "$root" systemctl enable --quiet boot-test-btvirt.service boot-test-scan.service boot-test-check.service
chroot "$root" systemctl is-enabled --quiet blesensord.service || die "the package did not enable blesensord.service"

echo blesensor-boot-test >"$root/etc/hostname"
chroot "$root" systemd-machine-id-setup --print >/dev/null

unmount_all

# Debian's kernel modules, without the drivers no emulated machine here has (sound, GPUs, media,
# Wi-Fi, Ethernet, InfiniBand), then depmod so that modprobe knows only what is there.
install -d "$root/usr/lib/modules"
tar -C /lib/modules -cf - \
    --exclude="$kver/kernel/sound" --exclude="$kver/kernel/drivers/gpu" --exclude="$kver/kernel/drivers/media" \
    --exclude="$kver/kernel/drivers/net/wireless" --exclude="$kver/kernel/drivers/net/ethernet" \
    --exclude="$kver/kernel/drivers/infiniband" "$kver" | tar -C "$root/usr/lib/modules" -xf -
chroot "$root" depmod -a "$kver"

size_mb=$(( $(du -sm "$root" | cut -f1) + 256 ))
rm -f "$work/disk.img"
truncate -s "${size_mb}M" "$work/disk.img"
mke2fs -q -F -t ext4 -L blesensor-root -d "$root" "$work/disk.img"
rm -rf --one-file-system "$root"
log "disk image $work/disk.img (${size_mb} MB)"
