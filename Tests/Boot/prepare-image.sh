#!/usr/bin/env bash
# Makes the boot test's disk image: the cached root filesystem, the package installed with apt as a
# user would, the config, the test's user and units, and the kernel's modules.
#
#   Tests/Boot/prepare-image.sh ROOTFS_TAR DEB KERNEL_VERSION WORK_DIR
#
# Writes WORK_DIR/disk.img (ext4, made from the tree with mke2fs -d: no loop mount). WORK_DIR/root
# is the tree; it is removed again on success. Every mount this script makes is undone on exit.
# The package's architecture picks the variant:
#   amd64  the one line a user edits (board: simulated), the host's kernel modules for KERNEL_VERSION
#   arm64  guest/arm64/blesensor.yaml (a TMP102 on i2c-stub) and that TMP102's unit; the kernel is
#          the image's own (KERNEL_VERSION is `image`): its vmlinuz and initrd are copied to
#          WORK_DIR/vmlinuz and WORK_DIR/initrd.img. Its chroot runs through binfmt_misc
#          (cross/lib/binfmt-arm64.sh, which run-boot-test.sh runs first).
set -euo pipefail

rootfs_tar=$1 deb=$2 kver=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
root=$work/root
arch=$(dpkg-deb -f "$deb" Architecture)

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
if [[ $arch == amd64 ]]; then
    [[ -d /lib/modules/$kver ]] || die "no /lib/modules/$kver: install linux-image-amd64 (scripts/install-deps.sh)"
fi

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

config=$root/etc/blesensor/blesensor.yaml
[[ -f $config ]] || die "the package installed no $config"
if [[ $arch == amd64 ]]; then
    # The one line a user edits: the simulated board's sensors, the real controller hci0.
    sed -i -E 's/^board:.*/board: simulated/' "$config"
    if grep -qE '^transport:' "$config"; then
        sed -i -E 's/^transport:.*/transport: hci:0/' "$config"
    else
        echo "transport: hci:0" >>"$config"
    fi
else
    # A Pi's board profile with one real (kernel-driven) TMP102 on i2c-stub, the controller hci0.
    # Replaced with the owner and mode the package gives the file (it may hold a passkey).
    cp "$here/guest/arm64/blesensor.yaml" "$config"
    chroot "$root" chown root:blesensor /etc/blesensor/blesensor.yaml
    chmod 0640 "$config"
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
if [[ $arch == arm64 ]]; then
    install -m 0755 "$here/guest/arm64/i2c-stub.sh" "$root/usr/local/lib/boot-test/"
    install -m 0644 "$here/guest/arm64/tmp102.sh" "$root/usr/local/lib/boot-test/"
    install -m 0644 "$here/guest/arm64/boot-test-i2c-stub.service" "$root/etc/systemd/system/"
    install -D -m 0644 "$here/guest/arm64/boot-test-btvirt-arm64.conf" "$root/etc/systemd/system/boot-test-btvirt.service.d/arm64.conf"
    install -m 0644 "$here/guest/arm64/modules-load.conf" "$root/etc/modules-load.d/boot-test-i2c.conf"
    (source "$here/guest/arm64/tmp102.sh" && echo "options i2c-stub chip_addr=$TMP102_ADDRESS") \
        >"$root/etc/modprobe.d/boot-test-i2c-stub.conf"
    chroot "$root" systemctl enable --quiet boot-test-i2c-stub.service
fi
chroot "$root" systemctl is-enabled --quiet blesensord.service || die "the package did not enable blesensord.service"

echo blesensor-boot-test >"$root/etc/hostname"
chroot "$root" systemd-machine-id-setup --print >/dev/null

unmount_all

if [[ $arch == amd64 ]]; then
    # Debian's kernel modules, without the drivers no emulated machine here has (sound, GPUs, media,
    # Wi-Fi, Ethernet, InfiniBand), then depmod so that modprobe knows only what is there.
    install -d "$root/usr/lib/modules"
    tar -C /lib/modules -cf - \
        --exclude="$kver/kernel/sound" --exclude="$kver/kernel/drivers/gpu" --exclude="$kver/kernel/drivers/media" \
        --exclude="$kver/kernel/drivers/net/wireless" --exclude="$kver/kernel/drivers/net/ethernet" \
        --exclude="$kver/kernel/drivers/infiniband" "$kver" | tar -C "$root/usr/lib/modules" -xf -
    chroot "$root" depmod -a "$kver"
else
    # The image's own kernel (build-rootfs.sh installed it with its modules and a small initrd).
    kver=$(ls -1 "$root"/boot/vmlinuz-* 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -n 1)
    [[ -n $kver && -f $root/boot/initrd.img-$kver ]] || die "the root filesystem has no /boot/vmlinuz-* with its initrd"
    cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
    cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
    echo "$kver" >"$work/kernel-version"
    log "kernel $kver from the image: $work/vmlinuz, $work/initrd.img"
fi

size_mb=$(( $(du -sm "$root" | cut -f1) + 256 ))
rm -f "$work/disk.img"
truncate -s "${size_mb}M" "$work/disk.img"
mke2fs -q -F -t ext4 -L blesensor-root -d "$root" "$work/disk.img"
rm -rf --one-file-system "$root"
log "disk image $work/disk.img (${size_mb} MB)"
