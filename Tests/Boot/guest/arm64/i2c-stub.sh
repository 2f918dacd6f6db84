#!/bin/bash
# Test only (boot-test-i2c-stub.service, before blesensord): the TMP102 that blesensor.yaml names,
# on an emulated SMBus: i2c-stub with a chip at its address, /dev/i2c-N from i2c-dev (both loaded
# early by modules-load.d, as on a Pi; at the latest here, before blesensord starts, so that its
# DeviceAllow=char-i2c finds the i2c major), and the chip's registers as at power-up with a known
# temperature (tmp102.sh).
set -u
here=$(dirname "$0")
source "$here/tmp102.sh"

# No-ops when systemd-modules-load loaded them; the address comes from /etc/modprobe.d.
modprobe i2c-dev || exit 1
modprobe i2c-stub || exit 1
bus=
for adapter in /sys/bus/i2c/devices/i2c-*; do
    [[ $(cat "$adapter/name" 2>/dev/null) == "SMBus stub driver" ]] && bus=${adapter##*-}
done
if [[ $bus != "$TMP102_BUS" ]]; then
    echo "i2c-stub is bus '$bus', but blesensor.yaml names bus $TMP102_BUS" >&2
    exit 1
fi
# udev gives the node to group i2c (i2c-tools' rule), which the blesensor user is in. Under TCG
# udev is still busy with the boot's coldplug here and took over 30 s on a loaded host, so wait for
# udev to have processed the device (its rules applied), then check the group it gave.
limit=${I2C_GROUP_TIMEOUT:-120}
if ! udevadm wait --timeout="$limit" "/dev/i2c-$bus"; then
    echo "/dev/i2c-$bus: $(ls -l "/dev/i2c-$bus" 2>&1), not processed by udev after $limit s" >&2
    exit 1
fi
if [[ $(stat -c %G "/dev/i2c-$bus") != i2c ]]; then
    echo "/dev/i2c-$bus: $(ls -l "/dev/i2c-$bus" 2>&1), not group i2c once udev processed it" >&2
    exit 1
fi
# Configuration register 0x01: 0x60 0xA0 at power-up (Table 8: 4 Hz, 12-bit, not shut down).
tmp102_write 0x01 60A0 || exit 1
tmp102_write 0x00 "$TMP102_BOOT_REGISTER" || exit 1
echo "TMP102 on i2c-stub: /dev/i2c-$bus ($(stat -c '%U:%G %a' "/dev/i2c-$bus")) address $TMP102_ADDRESS, temperature register $(i2cget -y "$bus" "$TMP102_ADDRESS" 0x00 w) (SMBus word, LSB first) = $TMP102_BOOT_CELSIUS °C"
