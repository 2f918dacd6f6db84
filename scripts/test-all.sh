#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the interop tests against Google's
# Bumble on a virtual radio, then the kernel tests (our binaries against i2c-stub, gpio-sim and
# btvirt in Debian's kernel under QEMU), then builds and checks the Debian package for this machine.
# Installs what it needs first (apt packages, the Python venv).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== swift build (tests included)"
build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
# Our code must build without warnings (dependencies are not ours to fix).
if grep -E "^$(pwd)/(Sources|Tests)/.*warning:" "$build_log"; then
    echo "compiler warnings in our code (listed above)" >&2
    exit 1
fi

echo "== swift test"
# A hung test must fail the run, not stall it.
timeout 900 swift test --skip-build 2>&1 | tee "$build_log.tests"
swift_summary=$(grep -E "Test run with [0-9]+ tests? .*passed" "$build_log.tests" | tail -1 || true)
swift_count=$(sed -E 's/.*Test run with ([0-9]+) tests?.*/\1/' <<<"$swift_summary")

echo "== interop tests against Bumble"
bin="$(swift build --show-bin-path)"
BLESENSORD="$bin/blesensord" HEART_RATE_PERIPHERAL="$bin/heart-rate-peripheral" \
    Tests/Interop/run-tests.sh 2>&1 | tee "$build_log.interop"
interop_count=$(grep -oE "^[0-9]+ passed" "$build_log.interop" | tail -1 | grep -oE "^[0-9]+")

echo "== kernel tests (i2c-stub, gpio-sim, btvirt in Debian's kernel under QEMU)"
# The build's binaries and test bundle against the real kernel's i2c-dev, GPIO character device and
# HCI user channel (Tests/KernelVM/README.md). KERNEL_TESTS_GPIOD2_BIN/_LIB add the libgpiod 2.x build.
kernel_start=$(date +%s)
kernel_args=(--bin "$bin")
if [[ -n ${KERNEL_TESTS_GPIOD2_BIN:-} ]]; then
    kernel_args+=(--gpiod2-bin "$KERNEL_TESTS_GPIOD2_BIN" --gpiod2-lib "${KERNEL_TESTS_GPIOD2_LIB:?KERNEL_TESTS_GPIOD2_LIB goes with KERNEL_TESTS_GPIOD2_BIN}")
fi
Tests/KernelVM/run-kernel-tests.sh "${kernel_args[@]}" 2>&1 | tee "$build_log.kernel"
kernel_count=$(grep -oE "^kernel tests: [0-9]+ passed, 0 failed" "$build_log.kernel" | grep -oE "[0-9]+" | head -1)
echo "kernel tests step: $(( $(date +%s) - kernel_start )) s"

package_arch=$(dpkg --print-architecture)
echo "== package ($package_arch)"
# The .deb for this machine (cross/README.md), then lintian, its contents and an install, upgrade,
# remove and purge in a bookworm chroot.
package_start=$(date +%s)
cross/build-deb.sh --output .build-deb 2>&1 | tee "$build_log.package"
deb=$(sed -n 's/^build-deb: built //p' "$build_log.package")
cross/check-deb.sh "$deb"
echo "package step: $(( $(date +%s) - package_start )) s"

echo "== boot test (the package in Debian bookworm under QEMU)"
# Installs the .deb into a debootstrapped image, boots it twice with systemd and btvirt, and checks
# that blesensord starts at boot, answers, advertises the same address and fails on a bad config.
boot_start=$(date +%s)
Tests/Boot/run-boot-test.sh "$deb" 2>&1 | tee "$build_log.boot"
boot_checks=$(grep -oE "all [0-9]+ checks passed" "$build_log.boot" | grep -oE "[0-9]+" || true)
echo "boot test: $(( $(date +%s) - boot_start )) s"

echo "swift tests: ${swift_count:-0}, interop tests: ${interop_count:-0}, kernel tests: ${kernel_count:-0}, boot checks: ${boot_checks:-0}"
echo "total: $(( ${swift_count:-0} + ${interop_count:-0} + ${kernel_count:-0} + ${boot_checks:-0} )) passed, 0 failed"
