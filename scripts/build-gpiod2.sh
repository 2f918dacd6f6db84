#!/usr/bin/env bash
# Builds blesensor against libgpiod 2.x on a machine whose own libgpiod is 1.6 (Debian or
# Raspberry Pi OS bookworm): Debian trixie's libgpiod 2.x comes from scripts/fetch-libgpiod2.sh
# into .build-gpiod2/prefix, pkg-config is pointed at it, and the build goes to .build-gpiod2/swift
# so the usual .build stays on the system's libgpiod. (On trixie a plain swift build uses 2.x.)
#
#   scripts/build-gpiod2.sh [--tests]
#
# Builds the blesensor CLI (with --tests, the programs and the GPIO test target, Tests/GPIOTests,
# and no other test), checks that it links
# libgpiod.so.3, and prints lines to eval or read:
#   bin=.../.build-gpiod2/swift/debug/blesensor
#   lib=.../.build-gpiod2/prefix/usr/lib/MULTIARCH     (run the binaries with LD_LIBRARY_PATH=$lib)
#   tests=.../.build-gpiod2/swift/debug/blesensorPackageTests.xctest   (with --tests)
# for example: eval "$(scripts/build-gpiod2.sh)"; LD_LIBRARY_PATH=$lib $bin sensor read gpio-pulse --chip gpiochip1 --line 3
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tests=no
die() { echo "build-gpiod2: $*" >&2; exit 1; }
while (($#)); do
    case $1 in
        --tests) tests=yes; shift ;;
        -h|--help) sed -n '2,14s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
command -v swift >/dev/null || die "swift not found: put the Swift toolchain's usr/bin on PATH"

fetched=$("$repo/scripts/fetch-libgpiod2.sh")
pkg_config_path=$(sed -n 's/^pkg_config_path=//p' <<<"$fetched")
lib=$(sed -n 's/^lib=//p' <<<"$fetched")
scratch=$repo/.build-gpiod2/swift

cd "$repo"
# SwiftPM reads libgpiod.pc for the CGPIOD system library: its Cflags put 2.x's gpiod.h first on
# the include path (so the 2.x shim compiles), its Libs link that prefix's libgpiod.so.
export PKG_CONFIG_PATH=$pkg_config_path${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
if [[ $tests == yes ]]; then
    echo "build-gpiod2: BLESENSOR_ONLY_TEST_TARGETS=GPIOTests swift build --build-tests --scratch-path $scratch" >&2
    export BLESENSOR_ONLY_TEST_TARGETS=GPIOTests
    swift build --build-tests --scratch-path "$scratch" >&2
else
    echo "build-gpiod2: swift build --product blesensor --scratch-path $scratch" >&2
    swift build --product blesensor --scratch-path "$scratch" >&2
fi
bin_dir=$(swift build --scratch-path "$scratch" --show-bin-path)

bin=$bin_dir/blesensor
[[ -x $bin ]] || die "$bin was not built"
readelf -d "$bin" | grep -q 'NEEDED.*\[libgpiod\.so\.3\]' \
    || die "$bin does not link libgpiod.so.3: $(readelf -d "$bin" | grep -o 'libgpiod[^]]*' || echo 'no libgpiod at all')"
echo "bin=$bin"
echo "lib=$lib"
if [[ $tests == yes ]]; then echo "tests=$bin_dir/blesensorPackageTests.xctest"; fi
