#!/usr/bin/env bash
# The boot test (issue 12): the package installed with apt into a Debian image, booted under QEMU
# with Debian's kernel and systemd, twice on the same disk (powered off and on):
#   boot 1  blesensord started at boot (READY), `blesensor status --json` answers user tester
#           through group blesensor, hci1 (a second btvirt controller) sees it advertising
#   boot 2  the same, with boot 1's random static address; then a config with an error and a
#           restart: the unit ends failed, with the config message in its journal
# The package's Architecture picks the variant:
#   amd64  a bookworm image under qemu-system-x86_64 with the host's kernel (board: simulated)
#   arm64  a trixie arm64 image under qemu-system-aarch64 -M virt with the image's own Debian
#          arm64 kernel; blesensord also reads a TMP102 on i2c-stub through the kernel's i2c-dev,
#          checked in both boots
#
#   Tests/Boot/run-boot-test.sh path/to/blesensor_VERSION_ARCH.deb
#
# Exits 0 only when every check passed; prints the checks and the figures (cold start to READY and
# to advertising). Needs root (debootstrap, chroot, mounts) and the packages of
# scripts/install-deps.sh. Caches the root filesystem in .build-vm/ (see build-rootfs.sh); the
# per-run image goes to .build-vm/run/ and is deleted afterwards; the logs of the last run stay in
# .build-vm/last-run/. BOOT_TEST_TIMEOUT: seconds each boot may take (default 420 on amd64, 1500
# on arm64, whose emulation is several times slower).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=$repo/.build-vm

usage() { echo "usage: $0 path/to/blesensor_VERSION_ARCH.deb (ARCH amd64 or arm64)" >&2; exit 2; }
(($# == 1)) || usage
deb=$(realpath -e "$1" 2>/dev/null) || { echo "boot test: no package at $1" >&2; exit 2; }

if [[ $(id -u) -ne 0 ]]; then
    exec sudo --preserve-env=BOOT_TEST_TIMEOUT,BOOT_TEST_MIRROR,BOOT_TEST_ROOTFS_MAX_AGE_DAYS "$0" "$deb"
fi

arch=$(dpkg-deb -f "$deb" Architecture 2>/dev/null) || arch=
case $arch in
    amd64) qemu=qemu-system-x86_64 ;;
    arm64) qemu=qemu-system-aarch64 ;;
    *) echo "boot test: $deb is not an amd64 or arm64 Debian package" >&2; exit 2 ;;
esac
for tool in "$qemu" debootstrap mke2fs chroot; do
    command -v "$tool" >/dev/null || { echo "boot test: $tool is missing: run scripts/install-deps.sh" >&2; exit 1; }
done

if [[ $arch == amd64 ]]; then
    # Debian's newest installed kernel with its initrd and modules (linux-image-amd64).
    kver=
    for vmlinuz in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V -r); do
        candidate=${vmlinuz#/boot/vmlinuz-}
        if [[ -f /boot/initrd.img-$candidate && -d /lib/modules/$candidate ]]; then kver=$candidate; break; fi
    done
    [[ -n $kver ]] || { echo "boot test: no Debian kernel with initrd and modules in /boot: apt-get install linux-image-amd64" >&2; exit 1; }
else
    # The arm64 image brings its own kernel (build-rootfs.sh); its chroots run through binfmt_misc.
    kver=image
    "$repo/cross/lib/binfmt-arm64.sh"
fi

mkdir -p "$cache"
# One run at a time per checkout: the run directory is shared.
exec 9>"$cache/boot-test.lock"
flock -n 9 || { echo "boot test: another run holds $cache/boot-test.lock" >&2; exit 1; }

run=$cache/run
cleanup() {
    # prepare-image.sh unmounts what it mounted; this only removes the per-run files.
    if [[ -d $run ]]; then
        mkdir -p "$cache/last-run"
        cp -f "$run"/*.log "$cache/last-run/" 2>/dev/null || true
        rm -rf --one-file-system "$run"
    fi
}
trap cleanup EXIT
# A signal ends the script through its EXIT trap (bash skips EXIT traps on a fatal signal otherwise).
trap 'exit 130' INT TERM HUP
rm -rf --one-file-system "$run" "$cache/last-run"
mkdir -p "$run"

total_started=$(date +%s)
if [[ $arch == amd64 ]]; then
    echo "== boot test: $(basename "$deb") on kernel $kver"
else
    echo "== boot test: $(basename "$deb"), Debian trixie arm64 under qemu-system-aarch64 -M virt (TCG)"
fi
step_started=$(date +%s)
rootfs=$("$here/build-rootfs.sh" "$cache" "$arch")
rootfs_seconds=$(( $(date +%s) - step_started ))

step_started=$(date +%s)
"$here/prepare-image.sh" "$rootfs" "$deb" "$kver" "$run"
image_seconds=$(( $(date +%s) - step_started ))

step_started=$(date +%s)
status=0
if [[ $arch == amd64 ]]; then
    /usr/bin/python3 "$here/boot_vm.py" --kernel "/boot/vmlinuz-$kver" --initrd "/boot/initrd.img-$kver" \
        --disk "$run/disk.img" --run-dir "$run" --boot-timeout "${BOOT_TEST_TIMEOUT:-420}" || status=$?
else
    echo "== kernel $(cat "$run/kernel-version") (Debian's linux-image-arm64 from the image)"
    /usr/bin/python3 "$here/boot_vm.py" --arch aarch64 --kernel "$run/vmlinuz" --initrd "$run/initrd.img" \
        --disk "$run/disk.img" --run-dir "$run" --boot-timeout "${BOOT_TEST_TIMEOUT:-1500}" || status=$?
fi
boot_seconds=$(( $(date +%s) - step_started ))

echo "boot test times: root filesystem ${rootfs_seconds} s, image ${image_seconds} s, boots ${boot_seconds} s, total $(( $(date +%s) - total_started )) s"
echo "logs of this run: $cache/last-run/ (console.log, results.log, apt.log)"
exit "$status"
