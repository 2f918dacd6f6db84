#!/usr/bin/env bash
# Fetches Debian trixie's libgpiod 2.x (libgpiod-dev and its runtime library libgpiod3) into a
# build-local prefix, so a bookworm machine can build and test blesensor's libgpiod 2.x path.
#
#   scripts/fetch-libgpiod2.sh [--dir DIR]
#
# DIR defaults to .build-gpiod2 (gitignored); the prefix is DIR/prefix. The host's apt setup is
# left alone: apt reads a sources list, lists and cache of its own under DIR/apt, and the packages
# are unpacked with dpkg-deb -x, never installed. Nothing is fetched when the prefix is complete.
# libgpiod.pc's prefix is rewritten to the build-local one, so PKG_CONFIG_PATH finds it there.
# Prints, for scripts and people:
#   pkg_config_path=DIR/prefix/usr/lib/MULTIARCH/pkgconfig
#   lib=DIR/prefix/usr/lib/MULTIARCH          (LD_LIBRARY_PATH for the programs built against it)
#   version=2.2.1
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$repo/.build-gpiod2
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=trixie

die() { echo "fetch-libgpiod2: $*" >&2; exit 1; }
while (($#)); do
    case $1 in
        --dir) dir=${2:?--dir needs a directory}; shift 2 ;;
        -h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
for tool in apt-get dpkg-deb dpkg-architecture objdump pkg-config; do
    command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh"
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
prefix=$dir/prefix
libdir=$prefix/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
complete=$prefix/.complete

report() {
    echo "pkg_config_path=$libdir/pkgconfig"
    echo "lib=$libdir"
    echo "version=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion libgpiod)"
}

if [[ -f $complete ]]; then
    report
    exit 0
fi

# A private apt: its own sources list (trixie only), lists, cache and no preferences, so neither
# the host's sources nor its pinning take part and nothing under /etc/apt or /var/lib/apt changes.
apt_dir=$dir/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$apt_dir/preferences.d"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[[ -f $keyring ]] || die "$keyring not found: install debian-archive-keyring (it verifies trixie's Release file)"
echo "deb [signed-by=$keyring] $mirror $suite main" > "$apt_dir/sources.list"
apt_options=(
    -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
    -o "Dir::Etc::Preferences=$apt_dir/preferences" -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d"
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
    -o APT::Sandbox::User=root -qq
)
echo "fetch-libgpiod2: apt-get update ($suite from $mirror, private lists in $apt_dir)" >&2
apt-get "${apt_options[@]}" update
debs=$apt_dir/debs
rm -rf "$debs" "$prefix"
mkdir -p "$debs" "$prefix"
(cd "$debs" && apt-get "${apt_options[@]}" download libgpiod-dev libgpiod3)
for deb in "$debs"/*.deb; do
    echo "fetch-libgpiod2: unpacking $(basename "$deb")" >&2
    dpkg-deb -x "$deb" "$prefix"
done
# Only the C library: no static archives (the link must pick libgpiod.so.3) and no C++ binding.
rm -f "$libdir"/libgpiod*.a "$libdir"/libgpiodcxx* "$libdir/pkgconfig/libgpiodcxx.pc"
rm -rf "$prefix/usr/include/gpiodcxx" "$prefix/usr/include/gpiod.hpp"

pc=$libdir/pkgconfig/libgpiod.pc
[[ -f $pc ]] || die "libgpiod-dev from $suite has no $pc: its layout changed"
sed -i "s|^prefix=.*|prefix=$prefix/usr|" "$pc"
version=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --modversion libgpiod)
[[ $version == 2.* ]] || die "$pc says libgpiod $version, expected 2.x"

# trixie's library must run on this machine's C library: the newest GLIBC_ symbol version it
# needs may not be newer than ours (trixie's 2.2.1 needs 2.33, bookworm has 2.36).
library=$(readlink -f "$libdir/libgpiod.so.3")
needed=$(objdump -T "$library" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sed 's/GLIBC_//' | sort -uV | tail -1)
ours=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
if [[ $(printf '%s\n%s\n' "$needed" "$ours" | sort -V | tail -1) != "$ours" ]]; then
    die "$suite's $(basename "$library") needs glibc $needed, this machine has $ours: build libgpiod $version from source into $prefix instead"
fi
echo "fetch-libgpiod2: libgpiod $version needs glibc $needed, this machine has $ours" >&2
# The lists (about 20 MB) are needed again only for a refetch.
rm -rf "$apt_dir/lists" "$apt_dir/cache"
touch "$complete"
report
