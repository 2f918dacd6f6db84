#!/usr/bin/env bash
# Builds the blesensor Debian package for one architecture from this checkout.
#
#   cross/build-deb.sh [--arch amd64|arm64|armhf] [--release trixie|bookworm]
#                      [--swift-sdk SDK-ID|DESTINATION.json] [--output DIR] [--clean]
#
# Defaults: the host's architecture, no Swift SDK, output in .build-deb/. arm64 on an amd64 host
# needs nothing else: Debian sid's Swift cross-compiles it in a cached chroot, for the Debian
# release --release names (default trixie; cross/README.md). Any other cross build needs
# --swift-sdk: an installed Swift SDK's id, or a destination .json file. Everything else is the
# same for every target. The release build goes to .build-ARCH (.build-arm64-RELEASE), its own
# scratch path, so static and debug builds never invalidate each other; --clean deletes it
# first. Prints the package's path and sizes.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
host_arch=$(dpkg --print-architecture)
arch=$host_arch
sdk=
release=
output=$repo/.build-deb
clean=no

die() { echo "build-deb: $*" >&2; exit 1; }
usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; }

while (($#)); do
    case $1 in
        --arch) arch=${2:?--arch needs amd64, arm64 or armhf}; shift 2 ;;
        --release) release=${2:?--release needs trixie or bookworm}; shift 2 ;;
        --swift-sdk) sdk=${2:?--swift-sdk needs an SDK id from swift sdk list, or a destination .json file}; shift 2 ;;
        --output) output=${2:?--output needs a directory}; shift 2 ;;
        --clean) clean=yes; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done

case $arch in
    amd64|arm64|armhf) ;;
    *) die "unsupported architecture '$arch': use amd64, arm64 or armhf" ;;
esac
# arm64 from amd64 without an SDK of one's own: Debian's Swift in a chroot (cross/lib/swift-chroot.sh).
debian_swift=no
if [[ $arch == arm64 && $host_arch == amd64 && -z $sdk ]]; then
    debian_swift=yes
    release=${release:-trixie}
    case $release in trixie|bookworm) ;; *) die "unsupported --release '$release': trixie or bookworm" ;; esac
elif [[ -n $release ]]; then
    die "--release chooses the Debian release of an arm64 package built here with Debian's Swift; it does not apply to $arch with this host or SDK"
fi
if [[ $arch != "$host_arch" && -z $sdk && $debian_swift == no ]]; then
    die "building for $arch on $host_arch needs a Swift SDK for that target: pass --swift-sdk ID (\`swift sdk list\` shows the installed ones; cross/README.md says how to make one)"
fi
for tool in swift dpkg-deb dpkg-shlibdeps dpkg-parsechangelog readelf gzip; do
    command -v "$tool" >/dev/null || die "$tool not found: run scripts/install-deps.sh (and put the Swift toolchain's usr/bin on PATH)"
done
# The toolchain's objcopy strips every target; binutils' strip only the host's.
objcopy=$(dirname "$(command -v swift)")/llvm-objcopy
[[ -x $objcopy ]] || die "llvm-objcopy not found beside swift ($objcopy): use a complete Swift toolchain"

umask 022
mkdir -p "$output"
output=$(cd "$output" && pwd)
cd "$repo"
# Reproducible timestamps in the package (dpkg-deb clamps to it) and in the manual pages.
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date -d "$(dpkg-parsechangelog -l cross/debian/changelog -S Date)" +%s)
export SOURCE_DATE_EPOCH

scratch=$repo/.build-$arch${release:+-$release}
if [[ $clean == yes ]]; then rm -rf "$scratch"; fi
target_swift=(swift)
if [[ $debian_swift == yes ]]; then
    echo "build-deb: Debian's Swift for arm64 (Debian $release)"
    swift_version=$(cross/lib/swift-chroot.sh version)
    sdk_info=$(cross/lib/arm64-swift-sdk.sh "$release" "$swift_version")
    sdk_value() { sed -n "s/^$1=//p" <<<"$sdk_info"; }
    sysroot=$(sdk_value sysroot)
    # The C library the package's programs run on, for tests that run them here under qemu-aarch64.
    echo "build-deb: sysroot $sysroot"
    target_packages=$(sdk_value packages)
    # SwiftPM reads the target's .pc files (libgpiod) only with both variables pointing into the sysroot.
    target_swift=(cross/lib/swift-chroot.sh run env "PKG_CONFIG_SYSROOT_DIR=$sysroot"
        "PKG_CONFIG_PATH=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig"
        PKG_CONFIG_LIBDIR=/nonexistent swift)
    sdk_args=(--swift-sdks-path "$(sdk_value sdks-path)" --swift-sdk "$(sdk_value sdk)")
fi
# --disable-local-rpath: no RUNPATH $ORIGIN, which an installed /usr/bin program must not have.
# -z now: relocations resolved at start and the GOT read-only (full RELRO), as Debian builds daemons.
swift_args=(-c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now --scratch-path "$scratch")
if [[ $sdk == *.json ]]; then
    # A destination file, the form the community armv7 SDK ships in (cross/README.md).
    swift_args+=(--destination "$sdk")
elif [[ -n $sdk ]]; then
    swift_args+=(--swift-sdk "$sdk")
elif [[ $debian_swift == yes ]]; then
    swift_args+=("${sdk_args[@]}")
fi

# One multi-call program: blesensor is the daemon when run as blesensord (a link to it, below), so
# the package carries the Swift runtime and Foundation's ICU data once.
echo "build-deb: swift build ${swift_args[*]} --product blesensor"
build_start=$(date +%s)
"${target_swift[@]}" build "${swift_args[@]}" --product blesensor
bin=$("${target_swift[@]}" build "${swift_args[@]}" --show-bin-path)
echo "build-deb: target build took $(( $(date +%s) - build_start )) s"

stage=$output/stage-$arch
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"

# Manual pages, completions and the version come from running the programs, so from a build for
# this machine: the generate-manual plugin builds every executable in .build (debug), the same
# sources as the target build, whatever the target.
echo "build-deb: manual pages (swift-argument-parser's generate-manual plugin; builds .build for this machine)"
cross/lib/manual-pages.sh "$stage/usr/share/man"
host_bin=$(swift build --show-bin-path)

upstream=$("$host_bin/blesensord" --version)
# The target's own program when it runs here, else the host build of the same sources.
for built in "$host_bin/blesensor" $([[ $arch == "$host_arch" ]] && echo "$bin/blesensor"); do
    built_version=$("$built" --version)
    [[ $built_version == "$upstream" ]] || die "$built --version prints $built_version, blesensord $upstream: both print ProductVersion.current, so a stale build is in the way (try --clean)"
done
[[ $upstream =~ ^[0-9][0-9A-Za-z.+~]*$ ]] || die "version '$upstream' (ProductVersion.current) is not a Debian upstream version"
version=$(dpkg-parsechangelog -l cross/debian/changelog -S Version)
[[ ${version%-*} == "$upstream" && $version == *-* ]] \
    || die "cross/debian/changelog's newest entry is $version but the binaries are $upstream: add an entry for $upstream-1 (dch -v $upstream-1 -c cross/debian/changelog)"
maintainer=$(dpkg-parsechangelog -l cross/debian/changelog -S Maintainer)

# Binaries, stripped the way dh_strip does (symbols, .comment and .note; Swift's metadata sections are kept).
install -d "$stage/usr/bin"
"$objcopy" --strip-unneeded --remove-section=.comment --remove-section=.note \
    "$bin/blesensor" "$stage/usr/bin/blesensor"
chmod 0755 "$stage/usr/bin/blesensor"
# The daemon is the same program under its own name (argv[0]); systemd and users call blesensord.
ln -s blesensor "$stage/usr/bin/blesensord"
if [[ $arch == "$host_arch" ]]; then
    daemon_version=$("$stage/usr/bin/blesensord" --version)
    [[ $daemon_version == "$upstream" ]] || die "the blesensord link prints '$daemon_version', not $upstream: blesensor did not run as the daemon"
fi
cross/lib/check-static-swift.sh "$stage/usr/bin/blesensor"
# An SDK for another target than --arch would make a package that installs but cannot run.
case $arch in amd64) machine='X86-64' ;; arm64) machine='AArch64' ;; armhf) machine='ARM$' ;; esac
readelf -h "$stage/usr/bin/blesensor" | grep -E "^ *Machine:" | grep -qE "$machine" \
    || die "blesensor is built for $(readelf -h "$stage/usr/bin/blesensor" | sed -n 's/^ *Machine: *//p'), not $arch: the Swift SDK is for another target"

install -D -m 0644 systemd/blesensord.service "$stage/lib/systemd/system/blesensord.service"
install -D -m 0755 systemd/blesensord-devices.generator "$stage/lib/systemd/system-generators/blesensord-devices"
install -D -m 0644 systemd/blesensord.sysusers "$stage/usr/lib/sysusers.d/blesensord.conf"
# 0640: the file may hold a fixed passkey. The postinst gives it to group blesensor (which does
# not exist when dpkg unpacks it), so the daemon can read it and other users cannot.
install -D -m 0640 systemd/blesensor.yaml "$stage/etc/blesensor/blesensor.yaml"
install -d "$stage/usr/share/blesensor/boards"
install -m 0644 boards/*.yaml "$stage/usr/share/blesensor/boards/"
# The Grafana dashboard for the metrics: endpoint, to import in Grafana (Dashboards > Import).
install -D -m 0644 dashboards/blesensor.json "$stage/usr/share/blesensor/dashboards/blesensor.json"

install -d "$stage/usr/share/bash-completion/completions" "$stage/usr/share/zsh/vendor-completions" \
    "$stage/usr/share/fish/vendor_completions.d"
# bash-completion sources the file, so the generator's #!/bin/bash line is dropped (lintian: bash-completion-with-hashbang).
"$host_bin/blesensor" --generate-completion-script bash | sed '1{/^#!/d}' > "$stage/usr/share/bash-completion/completions/blesensor"
"$host_bin/blesensor" --generate-completion-script zsh > "$stage/usr/share/zsh/vendor-completions/_blesensor"
"$host_bin/blesensor" --generate-completion-script fish > "$stage/usr/share/fish/vendor_completions.d/blesensor.fish"
chmod 0644 "$stage"/usr/share/*/*completion*/*

doc=$stage/usr/share/doc/blesensor
install -D -m 0644 cross/debian/copyright "$doc/copyright"
gzip -9n < cross/debian/changelog > "$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"
install -D -m 0644 cross/debian/lintian-overrides "$stage/usr/share/lintian/overrides/blesensor"

install -m 0755 cross/debian/postinst cross/debian/prerm cross/debian/postrm "$stage/DEBIAN/"
echo /etc/blesensor/blesensor.yaml > "$stage/DEBIAN/conffiles"
chmod 0644 "$stage/DEBIAN/conffiles"

# Depends: the shared libraries the binaries really link (libc, libgpiod, libi2c, libstdc++ ...)
# as dpkg-shlibdeps finds them, for the target's architecture; adduser for the postinst.
shlibs_dir=$output/shlibdeps-$arch
rm -rf "$shlibs_dir"
mkdir -p "$shlibs_dir/debian"
printf 'Source: blesensor\n\nPackage: blesensor\nArchitecture: any\n' > "$shlibs_dir/debian/control"
# With Debian's Swift, the target release's library packages (unpacked as build trees by
# cross/lib/arm64-swift-sdk.sh) say which versions are needed, so no arm64 dpkg database is needed.
shlibs_trees=()
if [[ $debian_swift == yes ]]; then
    for tree in "$target_packages"/*; do shlibs_trees+=("-S$tree"); done
fi
shlibs=$(cd "$shlibs_dir" && DEB_HOST_ARCH=$arch dpkg-shlibdeps -O "${shlibs_trees[@]}" -e"$stage/usr/bin/blesensor") \
    || die "dpkg-shlibdeps failed: the target's runtime libraries must be installed for $arch (cross/README.md)"
rm -rf "$shlibs_dir"
shlibs=${shlibs#shlibs:Depends=}
[[ -n $shlibs ]] || die "dpkg-shlibdeps found no shared libraries, which cannot be right for these binaries"

# Installed-Size as dpkg-gencontrol computes it: KiB per file rounded up, 1 for every other entry.
installed_size=$(cd "$stage" && find . -path ./DEBIAN -prune -o ! -path . -printf '%y %s\n' |
    awk '{ total += ($1 == "f") ? int(($2 + 1023) / 1024) : 1 } END { print total }')

cat > "$stage/DEBIAN/control" <<EOF
Package: blesensor
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: adduser, $shlibs
Section: net
Priority: optional
Description: Bluetooth LE sensor bridge for Raspberry Pi and embedded Linux
 blesensord turns a board into a Bluetooth Low Energy peripheral: it polls
 I2C, GPIO, 1-Wire and thermal sensors and serves their readings as standard
 GATT services (Heart Rate, Health Thermometer, Environmental Sensing, Battery,
 Device Information) to phones and gateways, with LE pairing and bonds. It
 drives the controller through the HCI user channel, a UART or TCP, without
 bluetoothd, and runs as a systemd service under its own system user.
 .
 blesensor is the command-line companion: daemon status, live readings, bonds,
 pairing windows, configuration checks, and a BLE central to scan, explore,
 read, write and subscribe to other devices.
EOF

# md5sums of everything but the conffile, as dh_md5sums writes it.
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f ! -path ./etc/blesensor/blesensor.yaml -printf '%P\0' |
    sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"

deb=$output/blesensor_${version}_${arch}.deb
# xz as Debian does, on every core (61 s → 38 s for amd64 on this two-core machine).
dpkg-deb --root-owner-group -Zxz --threads-max="$(nproc)" --build "$stage" "$deb" >/dev/null
echo "build-deb: built $deb"
echo "build-deb: package size $(stat -c %s "$deb") bytes, Installed-Size $installed_size KiB"
echo "build-deb: Depends: adduser, $shlibs"
