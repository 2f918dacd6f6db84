# Sourced by the bluetooth and hci groups: start_btvirt STATE_DIR [dual-mode] makes two controllers
# (hci0, hci1) on one emulated air with btvirt (or $KVM_BTVIRT) and waits until both are up: LE-only
# ones, or with "dual-mode" BR/EDR + LE ones, as every Raspberry Pi chip is. Sets btvirt_pid and
# btvirt_attempt; on failure reports a failed check and returns 1.
boot_guest=$here/../../Boot/guest

start_btvirt() {
    local state=$1 attempt mode=(-L)
    [[ ${2:-} == dual-mode ]] && mode=()
    btvirt_pid=
    # btvirt opens AF_ALG sockets as soon as a controller exists; autoloading these modules then
    # outlasts the kernel's 2 s HCI_Reset timeout under TCG and leaves the controller dead.
    if ! modprobe -a bluetooth hci_vhci af_alg algif_hash algif_skcipher cmac ecb; then
        fail bluetooth-modules "modprobe bluetooth hci_vhci and the AF_ALG modules failed"
        return 1
    fi
    # Even so, a loaded host can stall btvirt past that timeout (a dead controller, address
    # 00:00:00:00:00:00): then a new pair of controllers, up to three times.
    for attempt in 1 2 3; do
        "${KVM_BTVIRT:-btvirt}" "${mode[@]}" -l2 >"$state/btvirt.log" 2>&1 </dev/null &
        btvirt_pid=$!
        btvirt_attempt=$attempt
        CONTROLLERS_TIMEOUT=20 timeout 40 "$boot_guest/controllers-ready.sh" hci0 hci1 >"$state/ready.log" 2>&1 && return 0
        info "btvirt attempt $attempt: $(tr '\n' ' ' <"$state/ready.log" | cut -c1-200)"
        kill "$btvirt_pid"
        wait "$btvirt_pid"
        wait_for 10 bash -c '! script -qec "btmgmt info" /dev/null | grep -q "^hci"'
    done
    fail btvirt-controllers "hci0 and hci1 did not both come up in 3 attempts: $(tr '\n' ' ' <"$state/ready.log" | cut -c1-300)"
    send_log <"$state/btvirt.log"
    dmesg | grep -i bluetooth | tail -n 10 | send_log
    btvirt_pid=
    return 1
}
