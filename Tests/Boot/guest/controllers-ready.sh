#!/bin/bash
# Waits (bounded) until each named controller is registered with the kernel's management interface
# with a non-zero address, i.e. its HCI_Reset and setup finished; a dead one fails the unit.
set -u
deadline=$(( $(cut -d. -f1 /proc/uptime) + ${CONTROLLERS_TIMEOUT:-60} ))
while :; do
    # btmgmt prints nothing unless stdout is a terminal.
    info=$(script -qec "btmgmt info" /dev/null | tr -d '\r')
    ready=1
    for hci in "$@"; do
        addr=$(awk -v hci="$hci:" '$1 == hci { found = 1; next } found && $1 == "addr" { print $2; exit }' <<<"$info")
        [[ -n $addr && $addr != 00:00:00:00:00:00 ]] || ready=0
    done
    ((ready)) && { echo "controllers ready: $*"; exit 0; }
    if (( $(cut -d. -f1 /proc/uptime) >= deadline )); then
        echo "controllers not ready: $*" >&2
        echo "$info" >&2
        exit 1
    fi
    sleep 0.2
done
