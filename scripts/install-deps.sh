#!/usr/bin/env bash
# Installs what building and testing blesensor needs on Debian / Raspberry Pi OS.
# Idempotent: packages already present are not reinstalled.
set -euo pipefail

packages=(libbluetooth-dev libgpiod-dev libi2c-dev libsqlite3-dev python3-venv python3-pip)
# libgpiod through pkg-config (Package.swift); the libgpiod 2.x step fetches trixie's with apt
# (scripts/fetch-libgpiod2.sh), checked against the archive keyring, and reads it with objdump.
packages+=(pkg-config debian-archive-keyring)
# The MQTT exporter links Debian's libmosquitto (pkg-config); its interop tests run the real broker
# (mosquitto, mosquitto_passwd) on 127.0.0.1, with TLS from a CA made by openssl.
packages+=(libmosquitto-dev mosquitto mosquitto-clients openssl)
# scripts/test.sh prints a hung test run's threads with gdb.
packages+=(gdb)
# The Debian package (cross/): dpkg-shlibdeps and readelf, lintian, and the install test's chroot.
packages+=(dpkg-dev binutils lintian debootstrap)
# The boot test (Tests/Boot): QEMU, Debian's kernel with its initrd and modules, mke2fs -d.
packages+=(qemu-system-x86 linux-image-amd64 e2fsprogs)
# The arm64 package and its tests (cross/, Tests/Arm64): arm64 programs run here through binfmt;
# the arm64 boot test (test-all.sh --slow) boots qemu-system-aarch64.
packages+=(qemu-user-static binfmt-support file qemu-system-arm)
# The kernel tests (Tests/KernelVM): a busybox initramfs, the gpio-sim module built from Debian's
# kernel source against its headers, and the tools run inside the VM (i2cset, gpioinfo, btvirt, btmgmt).
# linux-source-X.Y must match the kernel series linux-image-amd64 brings (6.1 on bookworm, 6.12 on
# trixie), so it is chosen after that is installed.
packages+=(busybox-static cpio kmod linux-headers-amd64 build-essential i2c-tools gpiod bluez bluez-test-tools jq)
# Tests/Interop/test_metrics.py: promtool checks the /metrics exposition, and a real Prometheus
# server scrapes the daemon and runs the shipped dashboard's queries.
packages+=(prometheus)
# Tests/KernelVM/bench-notify-bluez.sh (a benchmark, not run by the tests): bluetoothd's D-Bus and
# the Python bindings of its GATT application. (--profile also wants linux-perf.)
packages+=(dbus python3-dbus python3-gi)

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
updated=false
install_missing() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    echo "installing: ${missing[*]}"
    if ! $updated; then "${sudo_cmd[@]}" apt-get update -qq; updated=true; fi
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
install_missing "${packages[@]}"

# linux-image-amd64 depends on linux-image-X.Y.Z-N-amd64: its X.Y names the kernel source package.
kernel_image=$(dpkg-query -W -f='${Depends}' linux-image-amd64 | { grep -oE 'linux-image-[0-9]+\.[0-9]+' || true; } | head -n1)
[[ -n $kernel_image ]] || { echo "install-deps: cannot tell the kernel series from linux-image-amd64's dependencies" >&2; exit 1; }
install_missing "linux-source-${kernel_image#linux-image-}"

if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /opt/swift/bin /usr/share/swift/usr/bin; do
        if [[ -x $candidate/swift ]]; then
            echo "swift found at $candidate: add it to PATH (export PATH=$candidate:\$PATH)" >&2
            exit 1
        fi
    done
    cat >&2 <<'MSG'
Swift 6 is not installed. Install the Swift 6.x toolchain for your distribution
(https://www.swift.org/install/linux/ — on a Raspberry Pi choose the aarch64 build),
put its usr/bin on PATH, and run this command again.
MSG
    exit 1
fi
