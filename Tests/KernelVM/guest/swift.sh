# swift group (sourced by run-checks.sh): the test bundle's KernelI2CStubTests, which skip unless
# BLESENSOR_TEST_I2C_STUB_BUS names an i2c-stub bus, against a fresh stub chip at 0x50 (0x51 absent).
source "$here/i2c-stub.sh"
source "$here/bundle.sh"
swift_tests() {
    local bus
    if ! modprobe i2c-dev; then
        fail swift-tests "modprobe i2c-dev failed"
        return
    fi
    if ! load_stub 0x50; then
        fail swift-tests "i2c-stub chip_addr=0x50 did not load"
        return
    fi
    run_bundle swift KernelI2CStubTests "KernelI2CStubTests on /dev/i2c-$bus" BLESENSOR_TEST_I2C_STUB_BUS="$bus"
    rmmod i2c-stub 2>/dev/null
}

swift_tests
