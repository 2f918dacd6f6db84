#!/bin/bash
# The kernel tests inside the VM (PID 1 after guest/init): runs each group named in KVM_GROUPS
# (i2c, swift, gpio, bluetooth) against the real kernel's fake devices and reports one line per
# check on the results port (fd 3):
#   PASS NAME DETAIL | FAIL NAME DETAIL | SKIP NAME REASON | INFO TEXT | LOG TEXT | DONE
# Every command that could hang runs under `timeout`; the host also bounds the whole run.
# Settings from the host (kernel command line): KVM_BIN (the build's bin directory), KVM_GROUPS,
# KVM_GPIOD2_BIN / KVM_GPIOD2_LIB (a libgpiod 2.x build, optional), KVM_GPIO_SIM (gpio-sim modules).
set -u

here=$(cd "$(dirname "$0")" && pwd)
exec 3>"$KVM_RESULTS"
emit() { echo "$*" >&3; }
pass() { emit "PASS $1 ${*:2}"; }
fail() { emit "FAIL $1 ${*:2}"; }
skip() { emit "SKIP $1 ${*:2}"; }
info() { emit "INFO $*"; }
# Sends a file or stdin line by line as LOG; the host shows them when the run fails.
send_log() { while IFS= read -r line; do emit "LOG $line"; done; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds or the guest-time deadline passes.
wait_for() {
    local deadline
    deadline=$(awk -v now="$(uptime_s)" -v limit="$1" 'BEGIN { print now + limit }')
    shift
    until "$@"; do
        awk -v now="$(uptime_s)" -v deadline="$deadline" 'BEGIN { exit !(now >= deadline) }' && return 1
        sleep 0.1
    done
}

power_off() {
    sync
    echo o >/proc/sysrq-trigger
    # The power-off happens asynchronously; PID 1 must not exit meanwhile (the kernel would panic).
    # Nothing waits on this: QEMU exits when the guest powers off.
    sleep 30
}

info "guest up at $(uptime_s) s (kernel $(uname -r)), groups: $KVM_GROUPS"
for group in ${KVM_GROUPS//,/ }; do
    started=$(uptime_s)
    if [[ -f $here/$group.sh ]]; then
        # shellcheck source=/dev/null
        source "$here/$group.sh"
    else
        fail "$group" "no such test group (guest/$group.sh)"
    fi
    info "$group group: $(awk -v a="$started" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }') s (guest time)"
done
emit DONE
power_off
