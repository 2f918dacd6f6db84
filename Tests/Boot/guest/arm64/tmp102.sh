# The arm64 image's TMP102 on i2c-stub, sourced by i2c-stub.sh (before blesensord starts) and by
# check.sh. blesensor.yaml beside this file names the same bus and address.
TMP102_BUS=0
TMP102_ADDRESS=0x48
TMP102_SENSOR=body
# Temperature register 0x00 as the chip sends it, MSB first (TI SBOS397 Table 5: 12 bits,
# left-justified, 0.0625 °C per bit): 0x1A0 = 26.0 °C at boot; 0x190 = 25.0 °C written by the check.
TMP102_BOOT_REGISTER=1A00
TMP102_BOOT_CELSIUS=26.0
TMP102_NEXT_REGISTER=1900
TMP102_NEXT_CELSIUS=25.0

# tmp102_write REGISTER HHLL: a 16-bit register as the chip sends it (MSB first). i2c-stub keeps a
# 16-bit word per register and an SMBus word goes LSB first, so HHLL is the word 0xLLHH.
tmp102_write() {
    local register=$1 value=$2
    i2cset -y "$TMP102_BUS" "$TMP102_ADDRESS" "$register" "0x${value:2:2}${value:0:2}" w
}
