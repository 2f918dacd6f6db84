# bluetooth group (sourced by run-checks.sh): two dual-mode (BR/EDR + LE, like every Pi chip)
# controllers from btvirt on one emulated air; blesensord takes hci0 through the HCI user channel
# while a loop does what Raspberry Pi OS's bthelper does at boot (powers hci0 up and sends it a
# vendor command), and must advertise within two restarts; hci1 scans (btmgmt find) and must see the
# daemon's address advertising; a passive scan on hci1 (hcitool, recorded by btmon) must receive the
# flags and the BTHome service data of its broadcast in the advertising PDU itself (a passive scanner,
# as Home Assistant's, never gets a scan response); SIGTERM must stop the daemon with status 0 and
# give hci0 back.
# Then heart-rate-peripheral --stream on hci0 notifies the kernel's own host, a GATT central on
# hci1 (att_central.py): every notification must arrive and the peripheral must keep running.
# That stream makes the transport flush several packets at once (ATT answers beside the
# connection's commands, credits returned while values queue), which the kernel's HCI socket
# refused whole when they went out in one sendmmsg.
source "$here/btvirt.sh"
bt_state=/tmp/kvm-bluetooth
mkdir -p "$bt_state"
bt_pids=()

# btmgmt prints nothing unless stdout is a terminal.
mgmt_info() { script -qec "btmgmt info" /dev/null | tr -d '\r'; }
controller_listed() { mgmt_info | grep -q "^$1:"; }
status_json() { timeout 20 "$KVM_BIN/blesensor" status --json --socket "$bt_state/control.sock" 2>/dev/null </dev/null; }
# Keeps the answer in status.json, so the checks below read the same status that was judged.
daemon_advertising() {
    status_json >"$bt_state/status.json" && jq -e '.advertising == true and (.address | length) > 0' "$bt_state/status.json" >/dev/null 2>&1
}
scanned() { grep -qiF "$1" "$bt_state/scan.log" 2>/dev/null; }
daemon_gone() { ! kill -0 "$daemon" 2>/dev/null; }
daemon_advertising_or_gone() { daemon_advertising || daemon_gone; }

# Raspberry Pi OS's bthelper@hci0 at boot: `hciconfig hci0 up`, vendor commands (its SCO routing
# one), in a loop for as long as the daemon is starting.
bthelper_race() {
    local count=0
    while :; do
        hciconfig hci0 up 2>/dev/null
        hcitool -i hci0 cmd 0x3f 0x1c 0x01 0x02 0x00 0x01 0x01 >/dev/null 2>&1 && count=$((count + 1))
        echo "$count" >"$bt_state/bthelper.count"
    done
}

start_daemon() {
    "$KVM_BIN/blesensord" --config "$here/../blesensord.yaml" --transport hci:0 --state-dir "$bt_state/state" \
        --control-socket "$bt_state/control.sock" >>"$bt_state/daemon.log" 2>&1 </dev/null &
    daemon=$!
}

bluetooth_checks() {
    local address started line stop_started status
    start_btvirt "$bt_state" dual-mode || return
    bt_pids+=("$btvirt_pid")
    # The kernel's own host leaves LE off on a dual-mode controller until asked (bluetoothd asks):
    # hci1 scans and connects over LE.
    script -qec "btmgmt --index 1 le on" /dev/null >"$bt_state/le-on.log" 2>&1
    pass btvirt-controllers "$(head -1 "$bt_state/ready.log") (attempt $btvirt_attempt)"
    # The boot test's scanner: btmgmt find on hci1 in a loop, each line stamped with the guest's uptime.
    "$boot_guest/scan.sh" hci1 "$bt_state/scan.log" </dev/null >/dev/null 2>&1 &
    scanner=$!
    bt_pids+=("$scanner")

    started=$(uptime_s)
    : >"$bt_state/daemon.log"
    bthelper_race </dev/null >/dev/null 2>&1 &
    local racer=$! restarts=0
    bt_pids+=("$racer")
    start_daemon
    # As systemd would (Restart=on-failure): a start that lost the race may exit; two restarts at most.
    while wait_for 60 daemon_advertising_or_gone && daemon_gone && ((restarts < 2)); do
        restarts=$((restarts + 1))
        info "blesensord exited during the bthelper race; restart $restarts"
        start_daemon
    done
    kill "$racer" 2>/dev/null
    wait "$racer" 2>/dev/null
    if ! daemon_advertising; then
        fail blesensord-hci-advertising "blesensord --transport hci:0 on a dual-mode controller, racing bthelper, is not advertising after $restarts restarts: $(tr -d '\n' <"$bt_state/status.json" | cut -c1-300)"
        send_log <"$bt_state/daemon.log"
        kill "$daemon" 2>/dev/null
        return
    fi
    address=$(jq -r .address "$bt_state/status.json" | awk '{ print $1 }')
    pass blesensord-hci-advertising "advertising as $(jq -r .address "$bt_state/status.json") on $(jq -r .transport "$bt_state/status.json") (dual-mode) $(awk -v a="$started" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s after its first start, $restarts restarts, while bthelper's loop sent $(cat "$bt_state/bthelper.count" 2>/dev/null || echo 0) vendor commands"
    if wait_for 60 scanned "$address"; then
        line=$(grep -iF -m1 "$address" "$bt_state/scan.log")
        pass advertising-seen-from-hci1 "at $(awk '{ print $1 }' <<<"$line") s: ${line#* }"
    else
        fail advertising-seen-from-hci1 "hci1 did not find $address within 60 s; scanner log:"
        tail -n 20 "$bt_state/scan.log" | send_log
    fi

    passive_scan_check "$address"

    stop_started=$(uptime_s)
    kill -TERM "$daemon"
    if wait_for 20 daemon_gone; then
        wait "$daemon"
        status=$?
        if ((status == 0)) && wait_for 10 controller_listed hci0; then
            pass blesensord-sigterm "exited 0 $(awk -v a="$stop_started" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s after SIGTERM; hci0 is back with the kernel's management interface"
        else
            fail blesensord-sigterm "exit status $status after SIGTERM; hci0 listed again: $(controller_listed hci0 && echo yes || echo no)"
            tail -n 20 "$bt_state/daemon.log" | send_log
        fi
    else
        fail blesensord-sigterm "still running 20 s after SIGTERM"
        tail -n 20 "$bt_state/daemon.log" | send_log
        kill -KILL "$daemon" 2>/dev/null
    fi
}

# A passive scan on hci1 while btmon records what the controller reports: an advertising report (not
# a scan response) from ADDRESS with the flags and service data for UUID 0xFCD2 (BTHome).
bthome_heard() {
    awk -v address="$1" '
        /LE Advertising Report/ { report = 1; mine = 0; type = ""; flags = 0; bthome = 0 }
        report && /Event type:/ { type = $0 }
        report && index(toupper($0), "ADDRESS: " toupper(address)) { mine = 1 }
        report && /Flags: 0x06/ { flags = 1 }
        report && tolower($0) ~ /fcd2/ { bthome = 1 }
        report && mine && flags && bthome && type !~ /SCAN_RSP|Scan response/ { found = 1 }
        END { exit !found }' "$bt_state/btmon.log"
}

passive_scan_check() {
    local address=$1 monitor scan
    # hci1 to ourselves: the discovery loop would keep it scanning actively.
    kill "$scanner" 2>/dev/null
    wait "$scanner" 2>/dev/null
    btmon -i hci1 >"$bt_state/btmon.log" 2>&1 </dev/null &
    monitor=$!
    # Retried while the discovery the loop left running still holds the scanner.
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
        timeout 10 hcitool -i hci1 lescan --passive --duplicates >"$bt_state/passive-scan.log" 2>&1 </dev/null
        scan=$?
        ((scan == 124)) && bthome_heard "$address" && break
        sleep 2
    done
    kill "$monitor" 2>/dev/null
    wait "$monitor" 2>/dev/null
    if bthome_heard "$address"; then
        pass bthome-passive-scan "hci1's passive scan received $address's advertising PDU with flags 0x06 and BTHome service data (0xFCD2): $(grep -i -m1 -A1 "fcd2" "$bt_state/btmon.log" | tr -s ' ' | tr '\n' ' ' | cut -c1-160)"
    else
        fail bthome-passive-scan "no advertising report from $address with flags and service data 0xFCD2 in hci1's passive scan (hcitool: $(tr '\n' ' ' <"$bt_state/passive-scan.log" | cut -c1-120))"
        grep -i -B12 -A4 "fcd2" "$bt_state/btmon.log" | tail -n 30 | send_log
    fi
    "$boot_guest/scan.sh" hci1 "$bt_state/scan.log" </dev/null >/dev/null 2>&1 &
    scanner=$!
    bt_pids+=("$scanner")
}

# stream_check: heart-rate-peripheral --stream on hci0, the kernel's host on hci1 as its central.
stream_check() {
    local peer=C0:DE:C0:DE:00:01 count=500 peripheral output status
    "$KVM_BIN/heart-rate-peripheral" --transport hci:0 --stream --address "$peer" --mtu 23 --log-level notice \
        >"$bt_state/stream-peripheral.log" 2>&1 </dev/null &
    peripheral=$!
    # Connect once it advertises (a pending LE connection gives up after 20 s), without the scanner
    # competing for hci1.
    wait_for 60 scanned "$peer" || info "hci1 did not see $peer advertising within 60 s; connecting anyway"
    kill "$scanner" 2>/dev/null
    pkill -f "btmgmt --index 1 find" 2>/dev/null
    output=$(timeout 200 /usr/bin/python3 "$here/att_central.py" --hci 1 --peer "$peer" --count "$count" --timeout 180 2>&1)
    status=$?
    if ((status == 0)) && [[ $(jq -r .received <<<"$output" 2>/dev/null) == "$count" ]] && kill -0 "$peripheral" 2>/dev/null; then
        pass stream-to-kernel-central "$count notifications of 0x2A37 received by the kernel's host on hci1 (connected after $(jq -r .connected_after <<<"$output") s); heart-rate-peripheral still running"
    else
        fail stream-to-kernel-central "central exit $status: $(tr '\n' ' ' <<<"$output" | cut -c1-300); peripheral running: $(kill -0 "$peripheral" 2>/dev/null && echo yes || echo no)"
        tail -n 20 "$bt_state/stream-peripheral.log" | send_log
    fi
    if ! grep -qE "refused|failed|lost" "$bt_state/stream-peripheral.log"; then
        pass stream-peripheral-log "no refused packet, failed write or lost link in the peripheral's log"
    else
        fail stream-peripheral-log "$(grep -E "refused|failed|lost" "$bt_state/stream-peripheral.log" | head -3 | tr '\n' ' ' | cut -c1-300)"
    fi
    kill -TERM "$peripheral" 2>/dev/null
    wait_for 20 bash -c "! kill -0 $peripheral 2>/dev/null" || kill -KILL "$peripheral" 2>/dev/null
    wait "$peripheral" 2>/dev/null
}

bluetooth_checks
for pid in "${bt_pids[@]}"; do kill "$pid" 2>/dev/null; done
wait "${bt_pids[@]}" 2>/dev/null
bt_pids=()
# The stream to the kernel's central on LE-only controllers, as before: on btvirt's dual-mode ones
# the kernel's LE connect from hci1 to the peripheral did not complete (EINPROGRESS); not yet
# understood, so this check keeps the controllers it was written for.
wait_for 10 bash -c '! script -qec "btmgmt info" /dev/null | grep -q "^hci"'
if start_btvirt "$bt_state"; then
    bt_pids+=("$btvirt_pid")
    # The central's controller powered, as the scanner left it in the first part.
    script -qec "btmgmt --index 1 power on" /dev/null >"$bt_state/power-on.log" 2>&1
    stream_check
fi
for pid in "${bt_pids[@]}"; do kill "$pid" 2>/dev/null; done
