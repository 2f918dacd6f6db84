# bluetooth group (sourced by run-checks.sh): two LE controllers from btvirt on one emulated air;
# blesensord takes hci0 through the HCI user channel, hci1 scans (btmgmt find) and must see the
# daemon's address advertising; SIGTERM must stop the daemon with status 0 and give hci0 back.
boot_guest=$here/../../Boot/guest
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

bluetooth_checks() {
    local address started line stop_started status
    # btvirt opens AF_ALG sockets as soon as a controller exists; autoloading these modules then
    # outlasts the kernel's 2 s HCI_Reset timeout under TCG and leaves the controller dead.
    if ! modprobe -a bluetooth hci_vhci af_alg algif_hash algif_skcipher cmac ecb; then
        fail bluetooth-modules "modprobe bluetooth hci_vhci and the AF_ALG modules failed"
        return
    fi
    local attempt btvirt_pid
    # Even so, a loaded host can stall btvirt past that timeout (a dead controller, address
    # 00:00:00:00:00:00): then a new pair of controllers, up to three times.
    for attempt in 1 2 3; do
        btvirt -L -l2 >"$bt_state/btvirt.log" 2>&1 </dev/null &
        btvirt_pid=$!
        CONTROLLERS_TIMEOUT=20 timeout 40 "$boot_guest/controllers-ready.sh" hci0 hci1 >"$bt_state/ready.log" 2>&1 && break
        info "btvirt attempt $attempt: $(tr '\n' ' ' <"$bt_state/ready.log" | cut -c1-200)"
        kill "$btvirt_pid"
        wait "$btvirt_pid"
        wait_for 10 bash -c '! script -qec "btmgmt info" /dev/null | grep -q "^hci"'
    done
    bt_pids+=("$btvirt_pid")
    if ! grep -q "controllers ready" "$bt_state/ready.log"; then
        fail btvirt-controllers "hci0 and hci1 did not both come up in 3 attempts: $(tr '\n' ' ' <"$bt_state/ready.log" | cut -c1-300)"
        send_log <"$bt_state/btvirt.log"
        dmesg | grep -i bluetooth | tail -n 10 | send_log
        return
    fi
    pass btvirt-controllers "$(head -1 "$bt_state/ready.log") (attempt $attempt)"
    # The boot test's scanner: btmgmt find on hci1 in a loop, each line stamped with the guest's uptime.
    "$boot_guest/scan.sh" hci1 "$bt_state/scan.log" </dev/null >/dev/null 2>&1 &
    bt_pids+=($!)

    started=$(uptime_s)
    "$KVM_BIN/blesensord" --config "$here/../blesensord.yaml" --transport hci:0 --state-dir "$bt_state/state" \
        --control-socket "$bt_state/control.sock" >"$bt_state/daemon.log" 2>&1 </dev/null &
    daemon=$!
    if ! wait_for 60 daemon_advertising; then
        fail blesensord-hci-advertising "blesensord --transport hci:0 is not advertising after 60 s: $(tr -d '\n' <"$bt_state/status.json" | cut -c1-300)"
        send_log <"$bt_state/daemon.log"
        kill "$daemon" 2>/dev/null
        return
    fi
    address=$(jq -r .address "$bt_state/status.json" | awk '{ print $1 }')
    pass blesensord-hci-advertising "advertising as $(jq -r .address "$bt_state/status.json") on $(jq -r .transport "$bt_state/status.json") $(awk -v a="$started" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s after its start"
    if wait_for 60 scanned "$address"; then
        line=$(grep -iF -m1 "$address" "$bt_state/scan.log")
        pass advertising-seen-from-hci1 "at $(awk '{ print $1 }' <<<"$line") s: ${line#* }"
    else
        fail advertising-seen-from-hci1 "hci1 did not find $address within 60 s; scanner log:"
        tail -n 20 "$bt_state/scan.log" | send_log
    fi

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

bluetooth_checks
for pid in "${bt_pids[@]}"; do kill "$pid" 2>/dev/null; done
