#!/usr/bin/env bash
# Builds (once) the kernel tests' initramfs for kernel KVER: static busybox, guest/init and the
# modules that mount the host's root over 9p, with their dependencies in load order. Everything
# else (i2c-stub, gpio-sim, bluetooth) is loaded later from the host's /lib/modules through that
# root. Prints the path of the cached archive, keyed by the kernel version and a hash of the module
# list, init and busybox, so a change to any of them builds a new one.
#
#   build-initramfs.sh KVER CACHE_DIR
set -euo pipefail

kver=$1 cache=$2
here=$(cd "$(dirname "$0")" && pwd)
# virtio-pci for the devices, 9p for the root, virtio_console for the results port.
boot_modules=(virtio_pci 9pnet_virtio 9p virtio_console)
busybox=/bin/busybox

# A static binary has no program interpreter (readelf is in binutils, which install-deps.sh installs).
! readelf -l "$busybox" 2>/dev/null | grep -q "Requesting program interpreter" && [[ -x $busybox ]] \
    || { echo "kernel tests: $busybox is not static: apt-get install busybox-static" >&2; exit 1; }
key=$( { echo "$kver ${boot_modules[*]}"; cat "$here/guest/init" "$busybox"; } | sha256sum | cut -c1-16)
archive=$cache/initramfs-$kver-$key.cpio.gz
if [[ -f $archive ]]; then echo "$archive"; exit 0; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/modules"
cp "$busybox" "$work/bin/busybox"
install -m 0755 "$here/guest/init" "$work/init"
# Dependencies first, each module once (modprobe lists shared ones again for each module asked).
modprobe -S "$kver" -a --show-depends "${boot_modules[@]}" | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' \
    | while read -r path; do
        [[ $path == *.ko ]] || { echo "kernel tests: unexpected module file $path (compressed?)" >&2; exit 1; }
        cp "$path" "$work/modules/"
        basename "$path" >>"$work/modules/order"
    done
mkdir -p "$cache"
(cd "$work" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$archive.tmp"
mv "$archive.tmp" "$archive"
echo "$archive"
