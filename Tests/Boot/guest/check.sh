#!/bin/bash
# The boot test's checks, run by boot-test-check.service once blesensord's boot-time start job has
# finished. Two boots of the same disk; the phase is kept in /var/lib/boot-test:
#   1  blesensord started at boot, answers `blesensor status` for group blesensor, is seen
#      advertising from hci1; power off
#   2  the same, with the address of boot 1; then a config with an error and a restart: the unit
#      ends failed with the config message in its journal; power off
# The arm64 image also has a TMP102 on i2c-stub (tmp102.sh, from guest/arm64/): in both boots its
# reading in `blesensor status --json` must be the temperature in its register.
# Results go to the host on the virtio-serial port, one line each:
#   PHASE N | CLOCK UPTIME | PASS NAME DETAIL | FAIL NAME DETAIL | INFO KEY VALUE | LOG TEXT | DONE N
# Every wait is a poll with a deadline in guest time; the host bounds each boot as a whole.
set -u

port=/dev/virtio-ports/org.blesensor.boottest
state=/var/lib/boot-test
scan_log=/run/boot-test/scan.log
unit=blesensord.service
config=/etc/blesensor/blesensor.yaml
tmp102=/usr/local/lib/boot-test/tmp102.sh
[[ -f $tmp102 ]] && source "$tmp102"

exec 3>"$port" || { echo "boot-test: cannot open $port" >&2; exit 1; }
mkdir -p "$state"
phase=$(cat "$state/phase" 2>/dev/null || echo 1)

emit() { echo "$*" >&3; echo "boot-test: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
pass() { emit "PASS $1 ${*:2}"; }
fail() { emit "FAIL $1 ${*:2}"; }
info() { emit "INFO $1 ${*:2}"; }
prop() { systemctl show -p "$2" --value "$1"; }
# Microseconds of CLOCK_MONOTONIC as systemd reports them, in seconds with millisecond precision.
seconds() { awk -v us="$1" 'BEGIN { printf "%.3f", us / 1000000 }'; }

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or the deadline passes.
wait_for() {
    local deadline
    deadline=$(awk -v now="$(uptime_s)" -v limit="$1" 'BEGIN { print now + limit }')
    shift
    until "$@"; do
        awk -v now="$(uptime_s)" -v deadline="$deadline" 'BEGIN { exit !(now >= deadline) }' && return 1
        sleep 0.2
    done
}

# Sends text line by line as LOG; the host shows them when the run fails.
send_log() { while IFS= read -r line; do emit "LOG $line"; done; }
diagnose() {
    systemctl status --no-pager --lines=0 "$unit" 2>&1 | send_log
    journalctl -b --no-pager -o short-monotonic -u "$unit" -u bluetooth.service -u boot-test-btvirt.service -n 60 2>&1 | send_log
}

is_active() { [[ $(systemctl is-active "$unit") == active ]]; }
is_failed() { [[ $(prop "$unit" ActiveState) == failed ]]; }
boot_finished() { systemd-analyze time >/dev/null 2>&1; }
status_address() { awk '{ print $1 }' <<<"$1"; }

check_started_at_boot() {
    if ! wait_for 60 is_active; then
        fail blesensord-active "$(prop "$unit" ActiveState)/$(prop "$unit" SubState), result $(prop "$unit" Result), $(prop "$unit" NRestarts) restart(s)"
        diagnose
        return 1
    fi
    pass blesensord-active "active ($(prop "$unit" SubState)), main process $(prop "$unit" MainPID) runs as $(stat -c %U "/proc/$(prop "$unit" MainPID)")"

    # Started by the boot transaction: enabled for multi-user.target, active before this check
    # (which neither wants nor requires it) began, and never restarted.
    local enabled wanted restarts active_at check_at started_at
    enabled=$(systemctl is-enabled "$unit")
    wanted=$(prop "$unit" WantedBy)
    restarts=$(prop "$unit" NRestarts)
    started_at=$(prop "$unit" InactiveExitTimestampMonotonic)
    active_at=$(prop "$unit" ActiveEnterTimestampMonotonic)
    check_at=$(prop boot-test-check.service InactiveExitTimestampMonotonic)
    if [[ $enabled == enabled && " $wanted " == *" multi-user.target "* && $restarts == 0 ]] \
        && (( active_at > 0 && active_at < check_at )); then
        pass started-at-boot "enabled, wanted by multi-user.target, start at $(seconds "$started_at") s, active at $(seconds "$active_at") s, before this check at $(seconds "$check_at") s, 0 restarts"
    else
        fail started-at-boot "is-enabled $enabled, WantedBy '$wanted', NRestarts $restarts, active at $(seconds "$active_at") s, check at $(seconds "$check_at") s"
        diagnose
    fi

    # Type=notify: systemd makes the unit active only on READY=1.
    local type
    type=$(prop "$unit" Type)
    if [[ $type == notify ]]; then
        pass ready "Type=notify unit active: READY=1 at $(seconds "$active_at") s, $(seconds $((active_at - started_at))) s after its start; status '$(prop "$unit" StatusText)'"
    else
        fail ready "the unit is Type=$type, so active does not mean READY=1 was sent"
    fi
    info ready_s "$(seconds "$active_at")"
    info start_s "$(seconds "$started_at")"
}

# Sets current_address (e.g. C0:11:22:33:44:55) from the daemon's status.
check_status() {
    local out groups address
    groups=$(id -nG tester)
    if ! out=$(runuser -u tester -- blesensor status --json 2>&1); then
        fail status-json "as tester (groups: $groups): $out"
        diagnose
        return 1
    fi
    if ! jq -e '.advertising == true and .transport == "hci:0"' >/dev/null 2>&1 <<<"$out"; then
        fail status-json "as tester: not advertising on hci:0: $(tr -d '\n' <<<"$out")"
        return 1
    fi
    address=$(jq -r .address <<<"$out")
    current_address=$(status_address "$address")
    pass status-json "as tester (groups: $groups): transport $(jq -r .transport <<<"$out"), address $address, advertising, board $(jq -r .board <<<"$out"), $(jq '.sensors | length' <<<"$out") sensors"
    info address "$(status_address "$address")"

    # The group is what grants access: a user outside it is refused by the socket's permissions.
    local socket=/run/blesensor/control.sock
    if out=$(runuser -u nobody -- blesensor status --socket "$socket" 2>&1); then
        fail status-needs-group "user nobody (not in group blesensor) got an answer on $socket: $out"
    elif [[ $out == *"permission denied"* ]]; then
        pass status-needs-group "user nobody refused on $socket: $(tr '\n' ' ' <<<"$out")"
    else
        fail status-needs-group "user nobody failed on $socket, but not for permission: $(tr '\n' ' ' <<<"$out")"
    fi
    # Without --socket the CLI must pick the service's socket too, and say why it cannot use it.
    out=$(runuser -u nobody -- blesensor status 2>&1 | tr '\n' ' ')
    if [[ $out == *"permission denied"* ]]; then
        pass status-default-socket "user nobody, no --socket: $out"
    else
        fail status-default-socket "user nobody, no --socket: not refused for permission: $out"
    fi
}

# The TMP102 sensor's entry in `blesensor status --json` (as tester), e.g. {"name":"body","value":26,...}.
tmp102_status() { runuser -u tester -- blesensor status --json 2>&1 | jq -c --arg name "$TMP102_SENSOR" '.sensors[] | select(.name == $name)' 2>/dev/null; }
tmp102_reads() { jq -e --argjson celsius "$1" '.state == "ok" and .value == $celsius' >/dev/null 2>&1 <<<"$(tmp102_status)"; }
# The value written to i2c-stub's register before blesensord started, then a new one written now:
# the daemon reads the chip through the kernel's i2c-dev (no simulated board), and keeps reading it.
check_tmp102() {
    local first changed
    if ! wait_for 60 tmp102_reads "$TMP102_BOOT_CELSIUS"; then
        fail tmp102-i2c-stub "sensor $TMP102_SENSOR did not read $TMP102_BOOT_CELSIUS °C (register $TMP102_BOOT_REGISTER on bus $TMP102_BUS at $TMP102_ADDRESS) within 60 s: $(tmp102_status)"
        journalctl -b --no-pager -o short-monotonic -u boot-test-i2c-stub.service -u "$unit" -n 30 2>&1 | send_log
        return 1
    fi
    first=$(tmp102_status)
    tmp102_write 0x00 "$TMP102_NEXT_REGISTER"
    if wait_for 60 tmp102_reads "$TMP102_NEXT_CELSIUS"; then
        changed=$(tmp102_status)
        pass tmp102-i2c-stub "i2c-stub bus $TMP102_BUS ($(cat "/sys/bus/i2c/devices/i2c-$TMP102_BUS/name")) chip $TMP102_ADDRESS: register $TMP102_BOOT_REGISTER read as $(jq -r '"\(.value) \(.unit), \(.reads) reads"' <<<"$first"), then $TMP102_NEXT_REGISTER written now read as $(jq -r '"\(.value) \(.unit), \(.reads) reads, \(.failures) failures"' <<<"$changed")"
    else
        fail tmp102-i2c-stub "read $TMP102_BOOT_CELSIUS °C, but not $TMP102_NEXT_CELSIUS °C within 60 s after register $TMP102_NEXT_REGISTER was written: $(tmp102_status)"
    fi
}

advertised() { grep -qiF "$1" "$scan_log" 2>/dev/null; }
check_advertising() {
    local address=$1 line
    if wait_for 60 advertised "$address"; then
        line=$(grep -iF -m1 "$address" "$scan_log")
        pass advertising-seen "hci1 found $address at $(awk '{ print $1 }' <<<"$line") s: ${line#* }"
        info advertising_seen_s "$(awk '{ print $1 }' <<<"$line")"
    else
        fail advertising-seen "hci1 did not find $address within 60 s; scanner log:"
        tail -n 20 "$scan_log" 2>&1 | send_log
    fi
}

report_environment() {
    journalctl -b --no-pager -o short-monotonic -u boot-test-btvirt.service 2>&1 | send_log
    info bluetoothd "$(systemctl is-active bluetooth.service)"
    info mgmt_controllers "$(script -qec "btmgmt info" /dev/null | tr -d '\r' | awk '/^hci[0-9]+:/ { name = $1 } $1 == "addr" && name != "" { printf "%s %s; ", name, $2; name = "" }')"
    if wait_for 60 boot_finished; then
        info systemd_analyze "$(systemd-analyze time 2>&1 | tr '\n' ' ')"
        info critical_chain "$(systemd-analyze critical-chain --no-pager "$unit" 2>&1 | tail -n +3 | tr -s ' \n' ' ')"
        systemd-analyze blame --no-pager 2>&1 | head -n 10 | sed 's/^ */blame /' | send_log
    else
        info systemd_analyze "boot not finished after 60 s: $(systemd-analyze time 2>&1 | tr '\n' ' ')"
    fi
}

# The mistake a user makes, a misspelt key, then `systemctl restart blesensord`: the unit must
# end failed (not restart for ever) with the message `blesensor config check` prints in its journal.
check_config_error() {
    local expected cursor restarts_before journal line missing=0
    echo "devce-name: blesensor" >>"$config"
    if expected=$(blesensor config check "$config" 2>&1); then
        fail config-error-failed "blesensor config check accepts the broken file: $expected"
        return 1
    fi
    info config_check "$(tr '\n' ' ' <<<"$expected")"
    cursor=$(journalctl --show-cursor -n 0 -o cat | sed -n 's/^-- cursor: //p')
    restarts_before=$(prop "$unit" NRestarts)
    systemctl restart "$unit" 2>/dev/null
    if wait_for 120 is_failed; then
        pass config-error-failed "$(prop "$unit" ActiveState)/$(prop "$unit" SubState), result $(prop "$unit" Result), exit status $(prop "$unit" ExecMainStatus), $(( $(prop "$unit" NRestarts) - restarts_before )) automatic restart(s) before it stayed failed"
    else
        fail config-error-failed "still $(prop "$unit" ActiveState)/$(prop "$unit" SubState) after 120 s, $(( $(prop "$unit" NRestarts) - restarts_before )) automatic restart(s) so far (Restart=$(prop "$unit" Restart), RestartUSec=$(prop "$unit" RestartUSec), StartLimitBurst=$(prop "$unit" StartLimitBurst) in $(prop "$unit" StartLimitIntervalUSec), exit status $(prop "$unit" ExecMainStatus))"
        diagnose
    fi
    info restarts "$(( $(prop "$unit" NRestarts) - restarts_before ))"

    journal=$(journalctl --no-pager -o cat -u "$unit" ${cursor:+--after-cursor="$cursor"} 2>&1)
    # Each problem line of `blesensor config check`, after its "FILE: N problem(s):" header.
    while IFS= read -r line; do
        line=${line#"${line%%[![:space:]]*}"}
        [[ -z $line ]] && continue
        grep -qF -- "$line" <<<"$journal" || { missing=1; fail config-error-journal "not in the journal since the restart: $line"; }
    done < <(tail -n +2 <<<"$expected")
    if ((missing == 0)); then
        pass config-error-journal "journalctl -u blesensord has: $(tail -n +2 <<<"$expected" | sed 's/^[[:space:]]*//' | tr '\n' ' ')"
    else
        journalctl --no-pager -o short-monotonic -u "$unit" -n 30 2>&1 | send_log
    fi
}

# Who may read what: the configuration may hold a passkey, the state has every bond's keys.
check_file_modes() {
    local config_mode bonds_mode address_mode
    config_mode=$(stat -c '%U:%G %a' "$config")
    bonds_mode=$(stat -c '%U:%G %a' /var/lib/blesensor/bonds.sqlite 2>&1)
    address_mode=$(stat -c '%U:%G %a' /var/lib/blesensor/random-static-address 2>&1)
    if [[ $config_mode == "root:blesensor 640" && $bonds_mode == "blesensor:blesensor 600" && $address_mode == "blesensor:blesensor 600" ]]; then
        pass file-modes "$config $config_mode, bonds.sqlite $bonds_mode, address $address_mode"
    else
        fail file-modes "$config $config_mode (want root:blesensor 640), bonds.sqlite $bonds_mode and address $address_mode (want blesensor:blesensor 600)"
    fi
}

# The generator's drop-in: devices for what the configuration uses (on the simulated board, none
# but the unit's own /dev/rfkill; on arm64 the TMP102's bus), and no dialout without a uart: transport.
check_device_policy() {
    local dropin=/run/systemd/generator/blesensord.service.d/50-devices.conf allowed groups expected
    allowed=$(prop "$unit" DeviceAllow)
    groups=$(id -nG blesensor)
    # char-rtc r: what ProtectClock=yes adds, read-only.
    expected="char-rtc r /dev/rfkill w"
    [[ -n ${TMP102_BUS:-} ]] && expected="/dev/char/89:$TMP102_BUS rw $expected"
    if [[ -f $dropin ]] && [[ $(tr ' ' '\n' <<<"$allowed" | sort | tr '\n' ' ') == $(tr ' ' '\n' <<<"$expected" | sort | tr '\n' ' ') ]] \
        && ! grep -qw dialout <<<"$groups" && [[ -z $(prop "$unit" SupplementaryGroups) ]]; then
        pass device-policy "DeviceAllow=$allowed; user blesensor in: $groups; $(grep -c '^DeviceAllow=' "$dropin") line(s) in $dropin"
    else
        fail device-policy "DeviceAllow=$allowed (want $expected), SupplementaryGroups=$(prop "$unit" SupplementaryGroups), blesensor in: $groups; $dropin: $(tr '\n' ' ' <"$dropin" 2>&1 | cut -c1-300)"
    fi
}

# A damaged address file (no longer a random static address): a new identity would orphan every
# bond, so the daemon refuses to start, with its own exit status, which the unit does not restart.
check_damaged_state() {
    local restarts_before address=/var/lib/blesensor/random-static-address
    sed -i '$d' "$config"  # the misspelt key check_config_error added
    cp -p "$address" "$address.good"
    echo "00:11:22:33:44:55" >"$address"
    restarts_before=$(prop "$unit" NRestarts)
    systemctl reset-failed "$unit" 2>/dev/null
    systemctl restart "$unit" 2>/dev/null
    if wait_for 60 is_failed && [[ $(prop "$unit" ExecMainStatus) == 65 && $(( $(prop "$unit" NRestarts) - restarts_before )) == 0 ]]; then
        pass damaged-state-failed "$(prop "$unit" ActiveState)/$(prop "$unit" SubState), exit status 65, no automatic restart: $(journalctl --no-pager -o cat -u "$unit" -n 20 | grep -m1 -F "$address" | cut -c1-160)"
    else
        fail damaged-state-failed "$(prop "$unit" ActiveState)/$(prop "$unit" SubState), exit status $(prop "$unit" ExecMainStatus), $(( $(prop "$unit" NRestarts) - restarts_before )) automatic restart(s)"
        diagnose
    fi
    mv "$address.good" "$address"
}

# The state directory on a read-only file system (an SD card the kernel remounted read-only after
# errors): the daemon serves with its bonds in memory and says so in status, instead of failing.
check_read_only_state() {
    local dropin=/run/systemd/system/$unit.d/boot-test-read-only.conf out
    mkdir -p "$(dirname "$dropin")"
    printf '[Service]\nReadOnlyPaths=/var/lib/blesensor\n' >"$dropin"
    systemctl daemon-reload
    systemctl reset-failed "$unit" 2>/dev/null
    systemctl restart "$unit" 2>/dev/null
    if wait_for 60 is_active && out=$(blesensor status --json 2>&1) \
        && jq -e '.advertising == true and any(.bondStoreProblems[]?; contains("read-only file system"))' >/dev/null 2>&1 <<<"$out"; then
        pass read-only-state "active, advertising; status: $(jq -r '.bondStoreProblems[0]' <<<"$out" | cut -c1-160)"
    else
        fail read-only-state "$(prop "$unit" ActiveState)/$(prop "$unit" SubState), exit status $(prop "$unit" ExecMainStatus); status: $(tr -d '\n' <<<"${out:-none}" | cut -c1-300)"
        diagnose
    fi
    rm -f "$dropin"
    systemctl daemon-reload
}

# The host powers the machine on again for the next phase (as a Pi is power-cycled).
next_boot() {
    echo "$1" >"$state/phase"
    sync
    emit "DONE $phase"
    systemctl stop boot-test-scan.service
    systemctl poweroff
}

current_address=
emit "PHASE $phase"
emit "CLOCK $(uptime_s)"
case $phase in
1)
    check_started_at_boot && check_status
    [[ -n ${TMP102_SENSOR:-} && -n $current_address ]] && check_tmp102
    [[ -n $current_address ]] && check_advertising "$current_address"
    echo "$current_address" >"$state/address"
    check_file_modes
    check_device_policy
    info state_directory "$(ls -l /var/lib/blesensor 2>&1 | tail -n +2 | tr -s ' \n' ' ')"
    report_environment
    next_boot 2
    ;;
2)
    first=$(cat "$state/address" 2>/dev/null)
    check_started_at_boot && check_status
    [[ -n ${TMP102_SENSOR:-} && -n $current_address ]] && check_tmp102
    if [[ -n $current_address && $current_address == "$first" ]]; then
        pass same-address "boot 2 uses boot 1's random static address $current_address"
    else
        fail same-address "boot 1 had '$first', boot 2 has '$current_address'"
    fi
    [[ -n $current_address ]] && check_advertising "$current_address"
    report_environment

    check_config_error
    check_damaged_state
    check_read_only_state
    emit "DONE $phase"
    systemctl stop boot-test-scan.service
    systemctl poweroff
    ;;
*)
    fail phase "unknown phase '$phase' in $state/phase"
    systemctl poweroff
    ;;
esac
