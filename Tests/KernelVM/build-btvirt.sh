#!/usr/bin/env bash
# Builds (once) a btvirt whose controllers report N LE ACL buffers: Debian's btvirt hard-codes one
# (emulator/btdev.c, acl_max_pkt = 1), where real Pi controllers share eight. From BlueZ 5.66's
# upstream tarball in Debian's archive (the version Debian 12 ships), checked against its SHA-256,
# compiled straight from the sources btvirt is made of (no configure: nothing in them needs glib or
# D-Bus). Like Debian's, it returns a credit the moment it takes a packet. Prints the binary's path.
#
#   build-btvirt.sh ACL_BUFFERS CACHE_DIR
set -euo pipefail

buffers=$1 cache=$2
[[ $buffers =~ ^[1-9][0-9]*$ ]] && ((buffers <= 255)) || { echo "build-btvirt: ACL buffers must be 1...255, not $buffers" >&2; exit 2; }
version=5.66
tarball_sha256=a231fb9d151780edf6d2536c81914e2dbd3daa36b68f486badaf98a7f34021e4
url=http://deb.debian.org/debian/pool/main/b/bluez/bluez_$version.orig.tar.xz
key=$( { echo "$buffers $tarball_sha256"; cat "$0"; } | sha256sum | cut -c1-16)
out=$cache/btvirt-acl$buffers-$key/btvirt
if [[ -x $out ]]; then echo "$out"; exit 0; fi
command -v gcc >/dev/null || { echo "build-btvirt: gcc is missing: apt-get install gcc" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
curl -sSfL --retry 3 -o "$work/bluez.tar.xz" "$url" || { echo "build-btvirt: could not download $url" >&2; exit 1; }
echo "$tarball_sha256  $work/bluez.tar.xz" | sha256sum --check --quiet - \
    || { echo "build-btvirt: $url does not have the expected SHA-256" >&2; exit 1; }
tar -xJf "$work/bluez.tar.xz" -C "$work"
cd "$work/bluez-$version"
grep -q 'btdev->acl_max_pkt = 1;' emulator/btdev.c \
    || { echo "build-btvirt: emulator/btdev.c changed: adapt build-btvirt.sh" >&2; exit 1; }
sed -i "s/btdev->acl_max_pkt = 1;/btdev->acl_max_pkt = $buffers;/" emulator/btdev.c
echo "#define VERSION \"$version\"" >config.h
ln -s lib bluetooth  # the sources include <bluetooth/...> from the tree
mkdir -p "$(dirname "$out")"
gcc -O2 -w -I. -include config.h -o "$out.partial" \
    emulator/{main,serial,server,vhci,btdev,bthost,smp,phy,amp,le}.c lib/{bluetooth,hci}.c \
    src/shared/{queue,util,crypto,ecc,io-mainloop,timeout-mainloop,mainloop,mainloop-notify}.c
mv "$out.partial" "$out"
echo "$out"
