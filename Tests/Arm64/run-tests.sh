#!/usr/bin/env bash
# The tests as arm64 code: the Swift test bundle cross-built for aarch64 by Debian's Swift
# (cross/lib/swift-chroot.sh) and run under qemu-aarch64, the bookworm glibc shim checked where it
# is used, and, given an arm64 blesensord, an interop test of it against Bumble (Tests/Arm64/README.md).
#
#   Tests/Arm64/run-tests.sh [--build-only | --no-swift-tests] [--bin-dir DIR --sysroot DIR]
#
# --build-only: only build the test bundle. --no-swift-tests: skip the test bundle (what
# scripts/test-all.sh's default tier does; its slow tier, --slow, runs it).
# --bin-dir: where the arm64 blesensord and blesensor are (a package's usr/bin); --sysroot: the
# sysroot of the Debian release they were linked for, whose C library they run on here.
#
# Needs root (the chroot), scripts/install-deps.sh's packages and a Swift toolchain on PATH for the
# interop harness's own build. Prints each step's seconds; exit status 0 only if every step passed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
bin_dir=
daemon_sysroot=
build_only=no
swift_tests=yes
while (($#)); do
    case $1 in
        --build-only) build_only=yes; shift ;;
        --no-swift-tests) swift_tests=no; shift ;;
        --bin-dir) bin_dir=${2:?--bin-dir needs the directory of the arm64 blesensord and blesensor}; shift 2 ;;
        --sysroot) daemon_sysroot=${2:?--sysroot needs the sysroot its C library comes from}; shift 2 ;;
        *) echo "usage: $0 [--build-only | --no-swift-tests] [--bin-dir DIR --sysroot DIR]" >&2; exit 2 ;;
    esac
done
log() { echo "arm64-tests: $*"; }
die() { echo "arm64-tests: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root (the Debian Swift chroot): run it with sudo"

# Tests that user-mode emulation cannot run, and why; each still runs on amd64.
# qemu-user turns glibc posix_spawn's CLONE_VFORK into a plain fork, so a child whose exec fails
# exits 127 and the parent never sees the errno the test expects.
emulator_skips=('aMissingHelperIsReportedWithItsErrno')

swift_version=$(cross/lib/swift-chroot.sh version)
sdk_value() { sed -n "s/^$1=//p" <<<"$2"; }
build_log=$(mktemp)
trap 'rm -f "$build_log"' EXIT

if [[ $swift_tests == yes ]]; then
echo "== arm64: Swift test bundle (Debian's Swift $swift_version, sid sysroot)"
step_start=$(date +%s)
# The test runtime (swift-testing, XCTest, Foundation as shared libraries) is built for sid's glibc,
# so the test bundle links against, and runs on, the sid sysroot.
sid_sdk=$(cross/lib/arm64-swift-sdk.sh sid "$swift_version")
sid_sysroot=$(sdk_value sysroot "$sid_sdk")
cross/lib/swift-chroot.sh run env "PKG_CONFIG_SYSROOT_DIR=$sid_sysroot" \
    "PKG_CONFIG_PATH=$sid_sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sid_sysroot/usr/share/pkgconfig" \
    PKG_CONFIG_LIBDIR=/nonexistent \
    swift build --build-tests --swift-sdks-path "$(sdk_value sdks-path "$sid_sdk")" --swift-sdk "$(sdk_value sdk "$sid_sdk")" \
    --scratch-path .build-arm64-tests 2>&1 | tee "$build_log"
if grep -E "^$repo/(Sources|Tests)/.*warning:" "$build_log"; then
    die "Swift $swift_version warns about our code (listed above)"
fi
bundle=.build-arm64-tests/aarch64-unknown-linux-gnu/debug/blesensorPackageTests.xctest
[[ -x $bundle ]] || die "no arm64 test bundle at $bundle"
file -b "$bundle" | grep -q "ARM aarch64" || die "$bundle is not an aarch64 executable: $(file -b "$bundle")"
log "test bundle built in $(( $(date +%s) - step_start )) s"
[[ $build_only == no ]] || exit 0

step_start=$(date +%s)
skip_pattern=$(IFS='|'; echo "${emulator_skips[*]}")
# sid's qemu-aarch64 (in the chroot): bookworm's 7.2 lacks TCSETS2, which sid's tcsetattr uses.
# QEMU_LD_PREFIX makes every arm64 program the tests start (helpers, through binfmt) use the sysroot.
cross/lib/binfmt-arm64.sh
# Emulated code runs several times slower than the machine the tests' time limits were chosen on:
# BLESENSOR_TEST_TIME_SCALE stretches every limit (Tests/TestSupport/TimeLimits.swift), which only
# bound hangs. The outer timeout still ends a run that hangs as a whole.
timeout 5400 cross/lib/swift-chroot.sh run env "QEMU_LD_PREFIX=$sid_sysroot" BLESENSOR_TEST_TIME_SCALE=10 \
    qemu-aarch64 "$bundle" --testing-library swift-testing --skip "$skip_pattern" 2>&1 | tee "$build_log"
summary=$(grep -E "Test run with [0-9]+ tests? .*passed" "$build_log" | tail -1 || true)
[[ -n $summary ]] || die "the arm64 test bundle did not pass (output above)"
arm64_count=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$summary")
log "$arm64_count tests passed as arm64 code in $(( $(date +%s) - step_start )) s (skipped under emulation: ${emulator_skips[*]})"
fi

echo "== arm64: the glibc 2.36 shim against bookworm's C library"
step_start=$(date +%s)
bookworm_sdk=$(cross/lib/arm64-swift-sdk.sh bookworm "$swift_version")
bookworm_sysroot=$(sdk_value sysroot "$bookworm_sdk")
mkdir -p .build-arm64-tests
shim_test=$(mktemp -d "$repo/.build-arm64-tests/shim.XXXXXX")
cross/lib/swift-chroot.sh run /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot="$bookworm_sysroot" \
    -fuse-ld=lld -O2 -Wall -Werror cross/compat/test-glibc236compat.c -lglibc236compat -o "$shim_test/test"
cross/lib/swift-chroot.sh run qemu-aarch64 -L "$bookworm_sysroot" "$shim_test/test"
rm -rf "$shim_test"
log "shim checked in $(( $(date +%s) - step_start )) s"

if [[ -n $bin_dir ]]; then
    echo "== arm64: interop (the arm64 blesensord under qemu-aarch64 against Bumble)"
    step_start=$(date +%s)
    [[ -n $daemon_sysroot ]] || die "--bin-dir needs --sysroot (the sysroot of the release the binaries were linked for)"
    file -L -b "$bin_dir/blesensord" | grep -q "ARM aarch64" || die "$bin_dir/blesensord is not an aarch64 executable"
    cross/lib/binfmt-arm64.sh
    # The binaries run through binfmt (qemu-user-static), their C library from the release's sysroot.
    QEMU_LD_PREFIX=$daemon_sysroot BLESENSORD=$bin_dir/blesensord BLESENSOR=$bin_dir/blesensor Tests/Interop/run-tests.sh \
        -k 'test_simulated_board_serves_every_service_with_the_scripted_values or test_status_reports_every_field_with_a_subscribed_central' \
        2>&1 | tee "$build_log"
    interop_count=$(grep -oE "^[0-9]+ passed" "$build_log" | tail -1 | grep -oE "^[0-9]+")
    log "$interop_count interop tests passed with the arm64 daemon in $(( $(date +%s) - step_start )) s"
fi
echo "arm64 tests: ${arm64_count:-0} swift tests, shim checked, ${interop_count:-0} interop tests"
