#!/usr/bin/env bash
# Every test, in tiers (as swift-nio tiers its CI), each step and each tier printing its seconds:
#
#   tier 0  scripts/test.sh: the debug build with the tests, imports checked, no warnings in our
#           code, and the Swift unit and integration tests (what a developer runs after each change)
#   tier 1  libFuzzer on every fuzz target from its committed corpus, and the interop tests against
#           Google's Bumble on a virtual radio, two at a time
#   tier 2  the programs and the GPIO tests built against libgpiod 2.x (trixie's) and run with it;
#           the kernel tests (our binaries against i2c-stub, gpio-sim and btvirt in Debian's kernel
#           under QEMU; the pulse receiver on libgpiod 1.6 and on 2.x); the Debian package for this
#           machine built, checked and booted; then the arm64 package (cross-built with Debian's
#           Swift) checked, the glibc shim's test and interop tests of its daemon under qemu-aarch64
#
#   scripts/test-all.sh          all three tiers: the README's test command and CI's
#   scripts/test-all.sh --slow   also the emulated tier: the whole Swift test bundle as arm64 code
#                                under qemu-aarch64 and the arm64 package booted in an emulated arm64
#                                Debian (well over an hour more on a two-core machine, which CI's 90
#                                minutes cannot carry)
#
# Installs what it needs first (apt packages, the Python venv, the cached arm64 toolchain).
set -euo pipefail
cd "$(dirname "$0")/.."

slow=no
case ${1:-} in
    "") ;;
    --slow) slow=yes ;;
    *) echo "usage: $0 [--slow]" >&2; exit 2 ;;
esac
run_start=$(date +%s)
step_start=$run_start
tier_start=$run_start
tier_times=()
step_done() { echo "$1 step: $(( $(date +%s) - step_start )) s"; step_start=$(date +%s); }
tier_done() {
    tier_times+=("$1: $(( $(date +%s) - tier_start )) s")
    echo "== $1 done in $(( $(date +%s) - tier_start )) s"
    tier_start=$(date +%s)
}
# The number in a line "PREFIX N SUFFIX" of a log, or nothing.
count_in() { sed -nE "s/^$2([0-9]+)$3.*/\1/p" "$1" | tail -1; }

scripts/install-deps.sh
step_done "install"
tier_done "install"

package_arch=$(dpkg --print-architecture)
# Debian's Swift chroot and the arm64 sysroot are downloads and unpacking (about 7 minutes on a fresh
# machine, seconds once cached outside the clone): fetched beside the compile and test steps, which
# barely use the network, so that the arm64 package step only waits for what is left of it.
arm64_setup_log=$(mktemp)
arm64_setup=
if [[ $package_arch == amd64 ]]; then
    (
        started=$(date +%s)
        swift_version=$(cross/lib/swift-chroot.sh version)
        cross/lib/arm64-swift-sdk.sh trixie "$swift_version" >/dev/null
        echo "arm64 toolchain and sysroot ready in $(( $(date +%s) - started )) s (beside the other steps)"
    ) > "$arm64_setup_log" 2>&1 &
    arm64_setup=$!
fi

logs=$(mktemp -d)

echo "== tier 0: build and Swift tests (scripts/test.sh)"
scripts/test.sh 2>&1 | tee "$logs/tests"
swift_count=$(count_in "$logs/tests" ".*Test run with " " tests? .*passed")
step_done "build and swift test"
tier_done "tier 0"

echo "== tier 1: fuzzing (libFuzzer, every target for 15 s from its committed corpus)"
timeout 1200 scripts/fuzz.sh --seconds 15 2>&1 | tee "$logs/fuzz"
fuzz_count=$(grep -c "^fuzz: .* runs in " "$logs/fuzz" || true)
step_done "fuzzing"

echo "== tier 1: interop tests against Bumble (two at a time)"
bin="$(swift build --show-bin-path)"
BLESENSORD="$bin/blesensord" HEART_RATE_PERIPHERAL="$bin/heart-rate-peripheral" \
    Tests/Interop/run-tests.sh 2>&1 | tee "$logs/interop"
interop_count=$(count_in "$logs/interop" "" " passed")
step_done "interop"
tier_done "tier 1"

echo "== tier 2: libgpiod 2.x (Debian trixie's libgpiod in a build-local prefix)"
# The programs and the GPIO test target against libgpiod 2.x, as on trixie (scripts/build-gpiod2.sh:
# its own build directory, .build-gpiod2, and no other test target), then those tests with that
# library loaded; the environment variable makes them fail if the build fell back to 1.6.
scripts/build-gpiod2.sh --tests 2>&1 | tee "$logs/gpiod2-build"
if grep -E "^$(pwd)/(Sources|Tests)/.*warning:" "$logs/gpiod2-build"; then
    echo "compiler warnings in our code against libgpiod 2.x (listed above)" >&2
    exit 1
fi
gpiod2_lib=$(sed -n 's/^lib=//p' "$logs/gpiod2-build")
gpiod2_tests=$(sed -n 's/^tests=//p' "$logs/gpiod2-build")
gpiod2_bin=$(sed -n 's/^bin=//p' "$logs/gpiod2-build")
LD_LIBRARY_PATH=$gpiod2_lib BLESENSOR_EXPECT_LIBGPIOD_API=2 timeout 600 "$gpiod2_tests" --testing-library swift-testing \
    2>&1 | tee "$logs/gpiod2"
gpiod2_count=$(count_in "$logs/gpiod2" ".*Test run with " " tests? .*passed")
[[ -n $gpiod2_count ]] || { echo "the libgpiod 2.x tests did not pass" >&2; exit 1; }
# The CLI itself, loading trixie's libgpiod.so.3: a missing chip is reported as such.
gpiod2_cli=$(LD_LIBRARY_PATH=$gpiod2_lib "$gpiod2_bin" sensor read gpio-pulse --chip gpiochip97 --line 17 2>&1 || true)
grep -q "GPIO chip gpiochip97 not found" <<<"$gpiod2_cli" || { echo "blesensor built against libgpiod 2.x: $gpiod2_cli" >&2; exit 1; }
step_done "libgpiod 2.x"

echo "== tier 2: kernel tests (i2c-stub, gpio-sim, btvirt in Debian's kernel under QEMU)"
# The build's binaries and test bundle against the real kernel's i2c-dev, GPIO character device and
# HCI user channel (Tests/KernelVM/README.md); the pulse receiver runs twice, on libgpiod 1.6 (the
# tier 0 build) and on 2.x (the step above).
Tests/KernelVM/run-kernel-tests.sh --bin "$bin" --gpiod2-bin "$gpiod2_bin" --gpiod2-lib "$gpiod2_lib" 2>&1 | tee "$logs/kernel"
kernel_count=$(count_in "$logs/kernel" "kernel tests: " " passed, 0 failed")
step_done "kernel tests"

echo "== tier 2: package ($package_arch)"
# The .deb for this machine (cross/README.md), then lintian, its contents and an install, upgrade,
# remove and purge in a bookworm chroot.
cross/build-deb.sh --output .build-deb 2>&1 | tee "$logs/package"
deb=$(sed -n 's/^build-deb: built //p' "$logs/package")
cross/check-deb.sh "$deb"
step_done "package ($package_arch)"

echo "== tier 2: boot test (the package in Debian bookworm under QEMU)"
# Installs the .deb into a debootstrapped image, boots it twice with systemd and btvirt, and checks
# that blesensord starts at boot, answers, advertises the same address and fails on a bad config.
Tests/Boot/run-boot-test.sh "$deb" 2>&1 | tee "$logs/boot"
boot_checks=$(count_in "$logs/boot" ".*all " " checks passed")
step_done "boot test ($package_arch)"

if [[ $package_arch == amd64 ]]; then
    # After every other step, not beside one: built beside the interop step (on a machine loaded
    # by other work too), it left 3 of the 121 interop tests failing on this two-core machine.
    echo "== tier 2: package (arm64, cross-built with Debian's Swift)"
    if ! wait "$arm64_setup"; then
        cat "$arm64_setup_log" >&2
        echo "setting up Debian's Swift and the arm64 sysroot failed (above)" >&2
        exit 1
    fi
    tail -1 "$arm64_setup_log"
    cross/build-deb.sh --arch arm64 --output .build-deb 2>&1 | tee "$logs/package-arm64"
    arm64_deb=$(sed -n 's/^build-deb: built //p' "$logs/package-arm64")
    [[ -f $arm64_deb ]] || { echo "the arm64 build named no package" >&2; exit 1; }
    cross/check-deb.sh "$arm64_deb"
    # One program: check-deb.sh has checked that blesensord is a link to it.
    file -b .build-deb/stage-arm64/usr/bin/blesensor | grep -q "ARM aarch64" \
        || { echo "blesensor in the arm64 package is not an aarch64 program" >&2; exit 1; }
    step_done "package (arm64)"

    echo "== tier 2: arm64 tests (the glibc shim, interop of the arm64 daemon$([[ $slow == yes ]] && echo ", the Swift test bundle"))"
    arm64_sysroot=$(sed -n 's/^build-deb: sysroot //p' "$logs/package-arm64")
    arm64_args=(--bin-dir .build-deb/stage-arm64/usr/bin --sysroot "$arm64_sysroot")
    [[ $slow == yes ]] || arm64_args+=(--no-swift-tests)
    Tests/Arm64/run-tests.sh "${arm64_args[@]}" 2>&1 | tee "$logs/arm64"
    arm64_interop=$(count_in "$logs/arm64" "arm64-tests: " " interop tests passed")
    arm64_swift=$(count_in "$logs/arm64" "arm64-tests: " " tests passed as arm64 code")
    step_done "arm64 tests"
fi
tier_done "tier 2"

if [[ $slow == yes && $package_arch == amd64 ]]; then
    echo "== slow tier: boot test (the arm64 package in Debian trixie under qemu-system-aarch64)"
    Tests/Boot/run-boot-test.sh "$arm64_deb" 2>&1 | tee "$logs/boot-arm64"
    boot_arm64_checks=$(count_in "$logs/boot-arm64" ".*all " " checks passed")
    step_done "boot test (arm64)"
    tier_done "slow tier"
fi

counts=(
    "swift tests:$swift_count" "libgpiod 2.x tests:${gpiod2_count:-}" "fuzz targets:$fuzz_count" "interop tests:$interop_count"
    "kernel tests:$kernel_count" "boot checks:$boot_checks" "arm64 swift tests:${arm64_swift:-}"
    "arm64 interop tests:${arm64_interop:-}" "arm64 boot checks:${boot_arm64_checks:-}"
)
total=0 summary=
for entry in "${counts[@]}"; do
    value=${entry#*:}
    [[ -n $value ]] || continue
    total=$(( total + value ))
    summary+="${summary:+, }${entry%%:*}: $value"
done
echo "$summary"
echo "tiers: $(IFS=';'; echo "${tier_times[*]}" | sed 's/;/, /g')"
echo "total: $total passed, 0 failed ($([[ $slow == yes ]] && echo "all tiers and the slow one" || echo "tiers 0, 1 and 2"), $(( $(date +%s) - run_start )) s)"
