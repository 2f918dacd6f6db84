#!/usr/bin/env bash
# A Swift SDK for arm64 Debian, made from Debian's archive only: a sysroot of the target release's
# arm64 libraries (the C library, libstdc++, and the libraries blesensor links) plus the Swift
# runtime of sid's arm64 swiftlang, in the artifact-bundle form SwiftPM reads with --swift-sdks-path.
#
#   cross/lib/arm64-swift-sdk.sh RELEASE SWIFTLANG-VERSION
#
# RELEASE is the Debian release the binaries will run on: trixie, bookworm, or sid (the test
# bundle's, whose shared Swift test libraries need sid's glibc). SWIFTLANG-VERSION is the version
# of the compiler that will use it (cross/lib/swift-chroot.sh version): the runtime must be the
# same build. Prints four lines: sdks-path=DIR, sdk=ID, sysroot=DIR, and packages=DIR, which holds
# the runtime library packages unpacked as build trees for dpkg-shlibdeps -S.
#
# Cached in the cross cache ($BLESENSOR_CROSS_CACHE, default /var/cache/blesensor-cross) under a
# path per release that never changes (so that builds against it stay incremental), rebuilt when
# its key changes: every package version that goes in, the compiler's version and this script.
# bookworm's glibc 2.36 lacks six symbols sid's static Swift runtime calls, so its sysroot gets
# cross/compat/glibc236compat.c as a static library that every link takes in (cross/README.md).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
log() { echo "arm64-swift-sdk: $*" >&2; }
die() { log "$*"; exit 1; }

release=${1:?name the Debian release: trixie, bookworm or sid}
swift_version=${2:?give the swiftlang version of the compiler (cross/lib/swift-chroot.sh version)}
case $release in trixie|bookworm|sid) ;; *) die "unsupported release '$release': trixie, bookworm or sid" ;; esac
# shellcheck source=cross/lib/debian-archive.sh
source "$here/debian-archive.sh"
sdk_id=debian-$release-arm64

# Extracts DEB into DIR, keeping DIR's usr-merge symlinks (lib -> usr/lib) in place.
unpack() { # DEB DIR
    dpkg-deb --fsys-tarfile "$1" | tar -x --keep-directory-symlink -C "$2"
}

# The arm64 Swift runtime, once per swiftlang version: the resource trees of swiftlang and
# libswiftlang without what only the compiler on an arm64 host would use.
swift_runtime() {
    archive_init sid arm64
    local runtime=$cross_cache/swift-runtime-arm64-$swift_version arm64_version debs work
    if [[ -f $runtime/.blesensor-ready ]]; then echo "$runtime"; return; fi
    arm64_version=$(archive_version swiftlang)
    [[ $arm64_version == "$swift_version" ]] \
        || die "sid's arm64 swiftlang is $arm64_version but the compiler is $swift_version: the runtime must match the compiler (wait for sid to build both, or rebuild the chroot)"
    log "unpacking sid's arm64 Swift runtime $swift_version"
    debs=$(archive_fetch swiftlang libswiftlang) || exit 1
    work=$(mktemp -d "$cross_cache/swift-runtime-build.XXXXXX")
    local deb
    for deb in $debs; do dpkg-deb -x "$deb" "$work/x"; done
    mkdir -p "$work/runtime"
    cp -a "$work/x/usr/libexec/swift/lib/swift" "$work/x/usr/libexec/swift/lib/swift_static" \
        "$work/x/usr/libexec/swift/lib/clang" "$work/runtime/"
    rm -rf "$work/runtime/swift/embedded" "$work/runtime/swift_static/embedded" \
        "$work/runtime/swift/host" "$work/runtime/swift/FrameworkABIBaseline"
    touch "$work/runtime/.blesensor-ready"
    rm -rf "$runtime"
    mv "$work/runtime" "$runtime"
    rm -rf "$work"
    echo "$runtime"
}

runtime=$(swift_runtime)

archive_init "$release" arm64
gcc_major=$(archive_depends gcc | sed -n 's/^gcc-\([0-9]*\)$/\1/p' | head -n1)
[[ -n $gcc_major ]] || die "cannot tell Debian $release's default GCC"
# The development packages a link needs, and the runtime libraries they name (libgpiod2 on
# bookworm, libgpiod3 on trixie and sid), with the libraries those need in turn (libmosquitto1
# needs libssl3, libssl3t64 on trixie): the sysroot doubles as the root
# qemu-aarch64 runs from, and lld checks a shared library's own undefined symbols.
dev_packages=(libc6-dev libcrypt-dev "libgcc-$gcc_major-dev" "libstdc++-$gcc_major-dev" linux-libc-dev zlib1g-dev
    libsqlite3-dev libgpiod-dev libi2c-dev libbluetooth-dev libmosquitto-dev)
packages=(libc6 libgcc-s1 libstdc++6 libatomic1 zlib1g "${dev_packages[@]}")
runtime_libraries() { # PACKAGE…: the lib* runtime packages they depend on directly
    archive_depends "$@" | { grep -E '^lib' || true; } | grep -vE -- '-dev$|^libc-dev-bin$' || true
}
added=$(runtime_libraries "${dev_packages[@]}")
while [[ -n $added ]]; do
    mapfile -t added < <(printf '%s\n' $added | sort -u)
    packages+=("${added[@]}")
    added=$(runtime_libraries "${added[@]}" | grep -vxF -f <(printf '%s\n' "${packages[@]}") || true)
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)
versions=$(archive_versions "${packages[@]}")
(( $(wc -l <<<"$versions") == ${#packages[@]} )) || die "Debian $release (arm64) lacks some of: ${packages[*]}"
key=$( { echo "$versions"; echo "$swift_version"; cat "$here/arm64-swift-sdk.sh" "$repo/cross/compat/glibc236compat.c"; } | sha256sum | cut -c1-12)
sdks=$cross_cache/sdk-$release
bundle=$sdks/$sdk_id.artifactbundle
target_dir=$bundle/$sdk_id/aarch64-unknown-linux-gnu
sysroot=$target_dir/sysroot

if [[ $(cat "$sdks/.blesensor-key" 2>/dev/null) != "$key" ]]; then
    log "building the $release arm64 sysroot (${packages[*]})"
    debs=$(archive_fetch "${packages[@]}") || exit 1
    rm -rf "$sdks"
    mkdir -p "$sysroot/usr/lib" "$sysroot/usr/bin" "$sysroot/usr/sbin"
    for dir in lib bin sbin; do ln -s "usr/$dir" "$sysroot/$dir"; done
    for deb in $debs; do unpack "$deb" "$sysroot"; done
    # Each runtime library package as a package build tree (its files and DEBIAN/symbols or shlibs):
    # dpkg-shlibdeps -S reads the target's dependency information from there, with no arm64 dpkg database.
    mkdir -p "$sdks/packages"
    for deb in $debs; do
        package=$(dpkg-deb -f "$deb" Package)
        [[ $package == *-dev ]] || dpkg-deb -R "$deb" "$sdks/packages/$package"
    done
    # bookworm's libm.so, libz.so … are absolute links (/lib/…): inside a sysroot they point at the
    # host's files or nowhere, and lld would then silently take the static libm.a. Make them relative.
    while IFS= read -r link; do
        target=$(readlink "$link")
        [[ $target == /* ]] || continue
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
    done < <(find "$sysroot" -type l)
    # The Swift runtime, hard-linked (the SDKs of all releases share it), where swift-driver looks
    # for it with -sdk: usr/lib/swift and usr/lib/swift_static.
    mkdir -p "$sysroot/usr/libexec/swift/lib"
    for tree in swift swift_static clang; do cp -al "$runtime/$tree" "$sysroot/usr/libexec/swift/lib/"; done
    ln -s ../libexec/swift/lib/swift "$sysroot/usr/lib/swift"
    ln -s ../libexec/swift/lib/swift_static "$sysroot/usr/lib/swift_static"
    extra_options='"-use-ld=lld"'
    case $release in
        bookworm)
            # Built by the chroot's clang for the target, then linked into everything built with this SDK.
            "$here/swift-chroot.sh" run /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot="$sysroot" \
                -O2 -fPIC -Wall -Werror -c "$repo/cross/compat/glibc236compat.c" -o "$sysroot/usr/lib/aarch64-linux-gnu/glibc236compat.o"
            "$here/swift-chroot.sh" run /usr/libexec/swift/bin/llvm-ar rcs "$sysroot/usr/lib/aarch64-linux-gnu/libglibc236compat.a" \
                "$sysroot/usr/lib/aarch64-linux-gnu/glibc236compat.o"
            rm "$sysroot/usr/lib/aarch64-linux-gnu/glibc236compat.o"
            extra_options+=', "-lglibc236compat"' ;;
        sid)
            # Debian's swiftlang ships the _Testing_Foundation module but not its library, which
            # every test link asks for; the overlay has no code we use, so an empty archive stands in.
            printf '!<arch>\n' > "$sysroot/usr/lib/aarch64-linux-gnu/lib_Testing_Foundation.a" ;;
    esac
    cat > "$bundle/info.json" <<EOF
{"schemaVersion": "1.0", "artifacts": {"$sdk_id": {"type": "swiftSDK", "version": "$swift_version",
 "variants": [{"path": "$sdk_id/aarch64-unknown-linux-gnu"}]}}}
EOF
    cat > "$target_dir/swift-sdk.json" <<EOF
{"schemaVersion": "4.0", "targetTriples": {"aarch64-unknown-linux-gnu": {"sdkRootPath": "sysroot",
 "swiftResourcesPath": "sysroot/usr/lib/swift", "swiftStaticResourcesPath": "sysroot/usr/lib/swift_static",
 "toolsetPaths": ["toolset.json"]}}}
EOF
    cat > "$target_dir/toolset.json" <<EOF
{"schemaVersion": "1.0", "swiftCompiler": {"extraCLIOptions": [$extra_options]}}
EOF
    echo "$key" > "$sdks/.blesensor-key"
    log "built $sdks ($(du -sh "$sdks" | cut -f1))"
fi

echo "sdks-path=$sdks"
echo "sdk=$sdk_id"
echo "sysroot=$sysroot"
echo "packages=$sdks/packages"
