#!/bin/bash
# LE discovery on one controller for as long as the unit runs; every line btmgmt prints goes to the
# file LOG, prefixed with the guest's monotonic time in seconds (/proc/uptime).
set -u
hci=$1 log=$2
index=${hci#hci}
: >"$log"
stamp() { while IFS= read -r line; do echo "$(cut -d' ' -f1 /proc/uptime) ${line%$'\r'}"; done >>"$log"; }
while :; do
    # bluetoothd powers its controllers on when it starts and off when it stops (as a unit with
    # Conflicts=bluetooth.service makes it do), so power on before every discovery.
    script -qec "btmgmt --index $index power on" /dev/null | stamp
    # One discovery lasts about 10 s; btmgmt exits when it ends (a timeout bounds it regardless).
    script -qec "timeout 30 btmgmt --index $index find -l" /dev/null | stamp
    # A discovery refused at once (busy, not powered) is retried after a pause, not in a tight loop.
    sleep 0.5
done
