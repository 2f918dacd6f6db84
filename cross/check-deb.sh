#!/usr/bin/env bash
# Checks a blesensor .deb made by cross/build-deb.sh:
#
#   cross/check-deb.sh [--no-chroot] DEB
#
# 1. lintian: fails on any error; warnings and infos are printed (suppressions only in the shipped
#    overrides file, each with its reason).
# 2. The contents: every file the package must ship, the conffile, maintainer scripts that parse
#    (sh -n), and binaries that need no Swift shared library.
# 3. When DEB is for this machine's architecture and we are root: installs, upgrades, removes and
#    purges it in a throwaway Debian bookworm chroot (cross/lib/chroot-test.sh), which needs the
#    Debian archive; --no-chroot skips this.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
chroot_test=yes
die() { echo "check-deb: $*" >&2; exit 1; }

while (($#)); do
    case $1 in
        --no-chroot) chroot_test=no; shift ;;
        -h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) die "unknown option '$1'" ;;
        *) break ;;
    esac
done
(($# == 1)) || die "name one .deb file (cross/check-deb.sh [--no-chroot] DEB)"
deb=$(realpath "$1")
[[ -f $deb ]] || die "no such file: $1"
for tool in dpkg-deb lintian readelf; do
    command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/check-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "check-deb: FAIL: $*" >&2; failures=$((failures + 1)); }

echo "== lintian"
# lintian refuses to run as root without --allow-root; it only reads the package.
if ! lintian --allow-root --fail-on error --display-info "$deb"; then
    fail "lintian reports errors (above)"
fi

echo "== contents"
dpkg-deb --extract "$deb" "$work/root"
dpkg-deb --control "$deb" "$work/control"
arch=$(dpkg-deb --field "$deb" Architecture)
expected=(
    usr/bin/blesensor
    lib/systemd/system/blesensord.service
    lib/systemd/system-generators/blesensord-devices
    usr/lib/sysusers.d/blesensord.conf
    etc/blesensor/blesensor.yaml
    usr/share/blesensor/boards/simulated.yaml
    usr/share/blesensor/boards/raspberry-pi-zero-2-w.yaml
    usr/share/blesensor/boards/raspberry-pi-3b-plus.yaml
    usr/share/blesensor/boards/raspberry-pi-4b.yaml
    usr/share/blesensor/boards/raspberry-pi-5.yaml
    usr/share/blesensor/dashboards/blesensor.json
    usr/share/bash-completion/completions/blesensor
    usr/share/zsh/vendor-completions/_blesensor
    usr/share/fish/vendor_completions.d/blesensor.fish
    usr/share/man/man1/blesensor.1.gz
    usr/share/man/man8/blesensord.8.gz
    usr/share/doc/blesensor/copyright
    usr/share/doc/blesensor/changelog.Debian.gz
    usr/share/lintian/overrides/blesensor
)
for path in "${expected[@]}"; do
    [[ -f $work/root/$path ]] || fail "missing /$path"
done
# Every board profile in the source tree is shipped, not only the ones listed above.
for board in "$repo"/boards/*.yaml; do
    [[ -f $work/root/usr/share/blesensor/boards/$(basename "$board") ]] || fail "board $(basename "$board") not shipped"
done
[[ -x $work/root/usr/bin/blesensor ]] || fail "/usr/bin/blesensor is not executable"
# One multi-call program: the daemon is blesensor run under the name blesensord.
[[ -L $work/root/usr/bin/blesensord && $(readlink "$work/root/usr/bin/blesensord") == blesensor ]] \
    || fail "/usr/bin/blesensord is not a link to blesensor"
grep -qx /etc/blesensor/blesensor.yaml "$work/control/conffiles" 2>/dev/null || fail "/etc/blesensor/blesensor.yaml is not a conffile"
for script in postinst prerm postrm; do
    if [[ ! -x $work/control/$script ]]; then
        fail "maintainer script $script missing or not executable"
    elif ! sh -n "$work/control/$script"; then
        fail "maintainer script $script does not parse"
    fi
done
"$repo/cross/lib/check-static-swift.sh" "$work/root/usr/bin/blesensor" \
    || fail "blesensor needs Swift shared libraries"
depends=$(dpkg-deb --field "$deb" Depends)
echo "Depends: $depends"
for library in libgpiod libi2c libsqlite3 libmosquitto; do
    grep -q "$library" <<<"$depends" || fail "Depends names no $library package, which the binaries link"
done
! grep -qiE 'swift|foundation|libdispatch' <<<"$depends" || fail "Depends names a Swift package"

echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes, Installed-Size $(dpkg-deb --field "$deb" Installed-Size) KiB"

if [[ $chroot_test == yes ]]; then
    if [[ $arch != "$(dpkg --print-architecture)" ]]; then
        echo "== chroot: skipped ($arch package on a $(dpkg --print-architecture) machine)"
    elif [[ $(id -u) -ne 0 ]]; then
        echo "== chroot: skipped (needs root)"
    else
        echo "== chroot: install, upgrade, remove, purge"
        "$repo/cross/lib/chroot-test.sh" "$deb" || fail "the chroot test failed (above)"
    fi
fi

if ((failures)); then
    echo "check-deb: $failures check(s) failed for $(basename "$deb")" >&2
    exit 1
fi
echo "check-deb: $(basename "$deb") passed"
