# i2c-stub helpers for the i2c and swift groups.

# The bus number of the i2c-stub adapter (i2c-dev numbers it; normally 0, the only adapter).
stub_bus() {
    local adapter
    for adapter in /sys/bus/i2c/devices/i2c-*; do
        [[ $(cat "$adapter/name" 2>/dev/null) == "SMBus stub driver" ]] && { echo "${adapter##*-}"; return 0; }
    done
    return 1
}

# load_stub ADDRESS...: a fresh i2c-stub (all registers 0) with chips at those addresses; sets $bus.
load_stub() {
    rmmod i2c-stub 2>/dev/null
    local list
    list=$(IFS=,; echo "$*")
    modprobe i2c-stub chip_addr="$list" || return 1
    bus=$(stub_bus) && wait_for 5 test -c "/dev/i2c-$bus"
}
