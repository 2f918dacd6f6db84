# i2c group (sourced by run-checks.sh): each line of ../i2c-chips.txt on a fresh i2c-stub chip,
# registers written with i2cset as the chip would hold them, read back through `blesensor sensor read`.
# i2c-stub is SMBus-only and keeps a 16-bit word per command: an SMBus word read hands the low byte
# over first, so a register the chip sends MSB first (HH then LL) is the word 0xLLHH.
source "$here/i2c-stub.sh"

# write_register BUS ADDRESS TOKEN: one register write of the table's notation.
write_register() {
    local bus=$1 address=$2 token=$3 register value
    register=0x${token:1:2}
    value=${token#*=}
    case ${token:0:1} in
    w)
        [[ $value =~ ^[0-9A-Fa-f]{4}$ ]] || { echo "bad word '$token'"; return 1; }
        i2cset -y "$bus" "$address" "$register" "0x${value:2:2}${value:0:2}" w
        ;;
    b)
        local bytes=() byte
        IFS=, read -ra bytes <<<"$value"
        for byte in "${bytes[@]}"; do [[ $byte =~ ^[0-9A-Fa-f]{2}$ ]] || { echo "bad byte '$byte' in '$token'"; return 1; }; done
        if ((${#bytes[@]} == 1)); then
            i2cset -y "$bus" "$address" "$register" "0x${bytes[0]}" b
        else
            i2cset -y "$bus" "$address" "$register" $(printf '0x%s ' "${bytes[@]}") i
        fi
        ;;
    *) echo "unknown register write '$token'"; return 1 ;;
    esac
}

i2c_chip_check() {
    local driver=$1 address=$2 writes=$3 expected=$4 name token out err status
    name="i2c-$driver-$address"
    if ! load_stub "$address"; then
        fail "$name" "i2c-stub chip_addr=$address did not load"
        return
    fi
    for token in $writes; do
        if ! out=$(write_register "$bus" "$address" "$token" 2>&1); then
            fail "$name" "writing $token: $out"
            return
        fi
    done
    err=$(mktemp)
    out=$(timeout 60 "$KVM_BIN/blesensor" sensor read "$driver" --bus "$bus" --address "$address" 2>"$err" </dev/null)
    status=$?
    if [[ $expected == "error: "* ]]; then
        if ((status != 0)) && grep -qF -- "${expected#error: }" "$err"; then
            pass "$name" "exit $status, $(tr '\n' ' ' <"$err")"
        else
            fail "$name" "expected an error with '${expected#error: }', got exit $status, stdout '$out', stderr '$(tr '\n' ' ' <"$err")'"
        fi
    elif ((status == 0)) && [[ $out == "$expected" ]]; then
        pass "$name" "$out"
    else
        fail "$name" "expected '$expected', got exit $status, stdout '$out', stderr '$(tr '\n' ' ' <"$err")'"
    fi
    rm -f "$err"
}

if ! modprobe i2c-dev; then
    fail i2c-dev "modprobe i2c-dev failed: no /dev/i2c-N, so no I2C check can run"
    return
fi
trim() { local text=$1; text=${text#"${text%%[![:space:]]*}"}; echo "${text%"${text##*[![:space:]]}"}"; }
# The table is read on fd 4, so nothing in a check can consume it from stdin.
while IFS='|' read -r -u 4 driver address writes expected; do
    driver=$(trim "$driver")
    [[ -z $driver || $driver == \#* ]] && continue
    i2c_chip_check "$driver" "$(trim "$address")" "$(trim "$writes")" "$(trim "$expected")"
done 4<"$here/../i2c-chips.txt"
rmmod i2c-stub 2>/dev/null
