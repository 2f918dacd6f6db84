# swift group (sourced by run-checks.sh): the test bundle's KernelI2CStubTests, which skip unless
# BLESENSOR_TEST_I2C_STUB_BUS names an i2c-stub bus, against a fresh stub chip at 0x50 (0x51 absent).
source "$here/i2c-stub.sh"
swift_tests() {
    local bus bundle=$KVM_BIN/blesensorPackageTests.xctest output status test_name verdict count=0
    if [[ ! -x $bundle ]]; then
        fail swift-tests "no test bundle at $bundle (swift build --build-tests)"
        return
    fi
    if ! modprobe i2c-dev; then
        fail swift-tests "modprobe i2c-dev failed"
        return
    fi
    if ! load_stub 0x50; then
        fail swift-tests "i2c-stub chip_addr=0x50 did not load"
        return
    fi
    output=$(cd /tmp && BLESENSOR_TEST_I2C_STUB_BUS=$bus timeout 120 "$bundle" --testing-library swift-testing \
        --filter KernelI2CStubTests 2>&1 </dev/null)
    status=$?
    # swift-testing prints one line per test: "✔ Test name() passed after ..." / "✘ Test name() failed ...".
    while read -r test_name verdict; do
        count=$((count + 1))
        if [[ $verdict == passed ]]; then
            pass "swift-$test_name" "KernelI2CStubTests on /dev/i2c-$bus"
        else
            fail "swift-$test_name" "$(grep -F "$test_name" <<<"$output" | tr '\n' ' ' | cut -c1-400)"
        fi
    done < <(sed -nE 's/^.*Test ([A-Za-z0-9_]+)\(\) (passed|failed).*$/\1 \2/p' <<<"$output")
    if ((status != 0 || count == 0)); then
        fail swift-tests "the bundle exited $status after $count test(s)"
        send_log <<<"$output"
    fi
    rmmod i2c-stub 2>/dev/null
}

swift_tests
