#!/usr/bin/env bash
# Installs, upgrades, removes and purges a blesensor .deb in a throwaway Debian bookworm chroot
# and checks what the maintainer scripts did: the system user and its groups, the state
# directory (untouched by an upgrade, gone only on purge), the enabled unit, the conffile, and
# that the static binaries run where no Swift is installed.
#
#   cross/lib/chroot-test.sh DEB
#
# Needs root, debootstrap and the Debian archive (debootstrap's default mirror, or
# BLESENSOR_DEBIAN_MIRROR). The pristine chroot is kept as a tarball in .build-deb/chroot/
# (BLESENSOR_CHROOT_CACHE), so only the first run downloads the base system. Nothing is started:
# the chroot has no /run/systemd/system, so deb-systemd-invoke does nothing, as in any chroot.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
(($# == 1)) || { echo "chroot-test: name one .deb file" >&2; exit 2; }
deb=$(realpath "$1")
arch=$(dpkg-deb --field "$deb" Architecture)
version=$(dpkg-deb --field "$deb" Version)
cache=${BLESENSOR_CHROOT_CACHE:-$repo/.build-deb/chroot}
tarball=$cache/bookworm-minbase-$arch.tar
[[ $(id -u) -eq 0 ]] || { echo "chroot-test: needs root (chroot, debootstrap)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "chroot-test: debootstrap not found: run scripts/install-deps.sh" >&2; exit 2; }

mkdir -p "$cache"
if [[ ! -f $tarball ]]; then
    echo "chroot-test: creating the bookworm base system (once; cached in $tarball)"
    base=$(mktemp -d "$cache/base.XXXXXX")
    # systemd is included so that the postinst takes its main path, systemd-sysusers.
    debootstrap --variant=minbase --include=systemd --arch="$arch" bookworm "$base" ${BLESENSOR_DEBIAN_MIRROR:+"$BLESENSOR_DEBIAN_MIRROR"} \
        > "$cache/debootstrap.log" 2>&1 || { tail -20 "$cache/debootstrap.log" >&2; rm -rf "$base"; exit 1; }
    tar -C "$base" -cf "$tarball.partial" . && mv "$tarball.partial" "$tarball"
    rm -rf "$base"
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/blesensor-chroot.XXXXXX")
cleanup() {
    mountpoint -q "$root/proc" && umount "$root/proc"
    rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$tarball"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# apt, adduser and systemd-sysusers read /proc/self.
mount -t proc proc "$root/proc"

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
failures=0
check() { # DESCRIPTION COMMAND...: runs the command on the host side, records a failure
    local description=$1; shift
    if "$@"; then echo "  ok: $description"; else echo "  FAIL: $description" >&2; failures=$((failures + 1)); fi
}
member_of() { in_root id -nG blesensor | tr ' ' '\n' | grep -qx "$1"; }
stat_of() { stat -c '%u:%g %a %i %Y %s' "$root$1"; }
# Inside the chroot, so that names come from its /etc/passwd, not the host's.
state_directory_is_private() { test "$(in_root stat -c '%U:%G %a' /var/lib/blesensor)" = "blesensor:blesensor 700"; }
user_exists() { in_root getent passwd blesensor >/dev/null; }
install_deb() { in_root apt-get install -y -qq "$1" > "$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; return 1; }; }
user_is_system() {
    local entry uid home shell
    entry=$(in_root getent passwd blesensor) || return 1
    IFS=: read -r _ _ uid _ _ home shell <<<"$entry"
    [[ $uid -lt 1000 && $home == /var/lib/blesensor && $shell == */nologin ]]
}
installed_checks() {
    check "blesensord --version runs without Swift and prints ${version%-*}" \
        test "$(in_root blesensord --version)" = "${version%-*}"
    check "blesensor --version prints ${version%-*}" test "$(in_root blesensor --version)" = "${version%-*}"
    check "blesensor config check accepts the shipped /etc/blesensor/blesensor.yaml with the shipped boards" \
        in_root blesensor config check /etc/blesensor/blesensor.yaml
    check "blesensor is a system user with home /var/lib/blesensor and no login shell" user_is_system
    check "blesensor is in the groups that exist and it needs: i2c (not dialout: the generated unit drop-in gives it for uart: only; not bluetooth: D-Bus only)" \
        eval 'member_of i2c && ! member_of dialout && ! member_of bluetooth'
    check "the device-policy generator is installed, executable" test -x "$root/lib/systemd/system-generators/blesensord-devices"
    # No device tree in a chroot: `board: auto` finds no board, so the drop-in allows no sensor device.
    in_root rm -rf /tmp/generator
    in_root /lib/systemd/system-generators/blesensord-devices /tmp/generator
    check "the generator writes the drop-in, allowing nothing for a configuration the daemon would refuse" \
        eval 'grep -q "^\[Service\]$" "$root/tmp/generator/blesensord.service.d/50-devices.conf" && ! grep -q "^DeviceAllow=" "$root/tmp/generator/blesensord.service.d/50-devices.conf"'
    check "no gpio group was created where none existed" eval '! in_root getent group gpio >/dev/null'
    check "/var/lib/blesensor is owned by blesensor, mode 700" state_directory_is_private
    check "blesensord.service is enabled (multi-user.target.wants)" test -L "$root/etc/systemd/system/multi-user.target.wants/blesensord.service"
    check "/etc/blesensor/blesensor.yaml is registered as a conffile" \
        eval 'in_root dpkg-query -W -f="\${Conffiles}" blesensor | grep -q "/etc/blesensor/blesensor.yaml "'
    check "/etc/blesensor/blesensor.yaml is root:blesensor 0640 (it may hold a passkey)" \
        test "$(in_root stat -c %U:%G:%a /etc/blesensor/blesensor.yaml)" = "root:blesensor:640"
}

# i2c and bluetooth exist (as on Raspberry Pi OS), gpio does not (as on plain Debian); dialout is in base-passwd.
in_root groupadd --system i2c
in_root groupadd --system bluetooth
cp "$deb" "$root/tmp/blesensor.deb"
in_root apt-get update -qq > "$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; exit 1; }

echo "chroot-test: install $(basename "$deb") (systemd-sysusers present)"
install_deb /tmp/blesensor.deb
installed_checks

# The same package as a newer version: the postinst runs as `configure OLD-VERSION`.
echo "chroot-test: upgrade to $version+chroottest"
in_root sh -c 'echo "random static address" > /var/lib/blesensor/address && chown blesensor:blesensor /var/lib/blesensor/address && chmod 600 /var/lib/blesensor/address'
# What earlier versions did: the user in dialout (every serial port) and bluetooth, for good.
in_root adduser --quiet blesensor dialout
in_root adduser --quiet blesensor bluetooth
echo "# a local edit" >> "$root/etc/blesensor/blesensor.yaml"
state_before="$(stat_of /var/lib/blesensor) $(stat_of /var/lib/blesensor/address)"
repack=$(mktemp -d "${TMPDIR:-/tmp}/blesensor-repack.XXXXXX")
dpkg-deb --raw-extract "$deb" "$repack/pkg"
sed -i "s/^Version: .*/Version: $version+chroottest/" "$repack/pkg/DEBIAN/control"
dpkg-deb --root-owner-group --build "$repack/pkg" "$root/tmp/blesensor-upgrade.deb" >/dev/null
rm -rf "$repack"
install_deb /tmp/blesensor-upgrade.deb
check "the upgrade left /var/lib/blesensor and the stored address as they were (owner, mode, inode, mtime, size)" \
    test "$(stat_of /var/lib/blesensor) $(stat_of /var/lib/blesensor/address)" = "$state_before"
check "the upgrade kept the local edit of the conffile" grep -qx "# a local edit" "$root/etc/blesensor/blesensor.yaml"
check "blesensord.service is still enabled after the upgrade" test -L "$root/etc/systemd/system/multi-user.target.wants/blesensord.service"
check "the upgrade took blesensor out of dialout and bluetooth, which earlier versions added" \
    eval 'member_of i2c && ! member_of dialout && ! member_of bluetooth'

echo "chroot-test: remove"
in_root apt-get remove -y -qq blesensor > "$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; exit 1; }
check "the binaries are gone" test ! -e "$root/usr/bin/blesensord"
check "remove keeps the state (the stored address)" test -f "$root/var/lib/blesensor/address"
check "remove keeps the conffile" test -f "$root/etc/blesensor/blesensor.yaml"
check "remove keeps the blesensor user" user_exists

echo "chroot-test: purge"
in_root dpkg --purge blesensor > "$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; exit 1; }
check "purge deletes /var/lib/blesensor" test ! -e "$root/var/lib/blesensor"
check "purge deletes /etc/blesensor" test ! -e "$root/etc/blesensor"
check "purge keeps the blesensor user (Debian policy)" user_exists
check "purge leaves no blesensord link in /etc/systemd/system" \
    test -z "$(find "$root/etc/systemd/system" -name 'blesensord*')"
check "purge leaves no deb-systemd-helper state" \
    test -z "$(find "$root/var/lib/systemd/deb-systemd-helper-enabled" "$root/var/lib/systemd/deb-systemd-helper-masked" -name 'blesensord*' 2>/dev/null)"

# Where systemd-sysusers is absent (a container without systemd) the postinst falls back to adduser.
echo "chroot-test: install without systemd-sysusers (adduser fallback)"
in_root userdel blesensor
if in_root getent group blesensor >/dev/null; then in_root groupdel blesensor; fi
mv "$root/usr/bin/systemd-sysusers" "$root/usr/bin/systemd-sysusers.hidden"
install_deb /tmp/blesensor.deb
mv "$root/usr/bin/systemd-sysusers.hidden" "$root/usr/bin/systemd-sysusers"
check "adduser made blesensor a system user with home /var/lib/blesensor and no login shell" user_is_system
check "blesensor is in i2c, not dialout, not bluetooth" eval 'member_of i2c && ! member_of dialout && ! member_of bluetooth'
check "/var/lib/blesensor is owned by blesensor, mode 700" state_directory_is_private
in_root dpkg --purge blesensor > "$root/tmp/apt.log" 2>&1 || { cat "$root/tmp/apt.log" >&2; exit 1; }

if ((failures)); then
    echo "chroot-test: $failures check(s) failed" >&2
    exit 1
fi
echo "chroot-test: all checks passed"
