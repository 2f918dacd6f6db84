# bench group (sourced by run-checks.sh; Tests/KernelVM/bench-notify-bluez.sh runs it, the tests never
# do): the same 20-octet Heart Rate Measurement stream at ATT MTU 23 from three peripherals on
# btvirt's hci0, in alternating rounds, to the same central, the kernel's own host on hci1
# (att_central.py, which takes the figures at the 1000th and 5000th notification):
#   ours        heart-rate-peripheral --stream on the HCI user channel (KVM_BENCH_BIN)
#   acquire     bluetoothd + dbus-daemon + bluez_hr_app.py --mode acquire (AcquireNotify socket)
#   properties  bluetoothd + dbus-daemon + bluez_hr_app.py --mode properties (PropertiesChanged)
# Each round prints "INFO bench {json}"; the host turns them into figures. KVM_BENCH_PROFILE=N adds
# the top N entries of a perf profile (cpu-clock) of ours (linux-perf on the host);
# KVM_BENCH_SYSTEM_PROFILE=N the top N (command, object) pairs of a whole-guest profile of every
# variant's round: where the guest's CPU goes, the kernel, btvirt and the central included.
source "$here/btvirt.sh"
bench_state=/tmp/kvm-bench
mkdir -p "$bench_state"
ours_address=C0:DE:C0:DE:00:02

# The group always passes (it measures): its diagnostics go out as INFO lines, which are always shown.
bench_log() { while IFS= read -r line; do info "  $line"; done; }
# Swift symbols readable when the toolchain's demangler is at hand.
demangle() { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; }
power_on() { script -qec "btmgmt --index $1 power on" /dev/null >/dev/null 2>&1; }
# KVM_BENCH_RATE=R: R values a second from each peripheral instead of a stream, figures between the
# 200th and the 1200th value.
rate=${KVM_BENCH_RATE:-0}
if [[ $rate == 0 ]]; then marks=1000,5000; else marks=200,1200; fi
central() {
    timeout 400 /usr/bin/python3 "$here/att_central.py" --hci 1 "$@" --count "${marks#*,}" --marks "$marks" --timeout 360 2>&1
}
# A whole-guest profile of one round's measured window: system_profile start, then the central with
# $(system_profile central_args) enables perf at its first mark and disables it at its last, then
# system_profile report LABEL.
system_profile() {
    [[ -n ${KVM_BENCH_SYSTEM_PROFILE:-} ]] || return 0
    case $1 in
    start)
        rm -f "$bench_state/perf-ctl" "$bench_state/perf-ack"
        mkfifo "$bench_state/perf-ctl" "$bench_state/perf-ack"
        perf record -a -e cpu-clock -F 1000 -D -1 --control "fifo:$bench_state/perf-ctl,$bench_state/perf-ack" \
            -o "$bench_state/system.data" >"$bench_state/system-perf.log" 2>&1 </dev/null &
        system_profiler=$!
        ;;
    central_args) echo "--perf-control $bench_state/perf-ctl,$bench_state/perf-ack" ;;
    report)
        kill -INT "$system_profiler" 2>/dev/null
        wait "$system_profiler" 2>/dev/null
        perf report -i "$bench_state/system.data" --stdio --no-children --sort comm,dso >"$bench_state/system.txt" 2>&1
        info "bench: whole-guest profile of $2 ($(grep -o '^# Samples: .*' "$bench_state/system.txt"); command, object):"
        grep -E '^ +[0-9.]+%' "$bench_state/system.txt" | head -n "$KVM_BENCH_SYSTEM_PROFILE" | cut -c1-160 | bench_log
        perf report -i "$bench_state/system.data" --stdio --no-children --sort sym >"$bench_state/system.txt" 2>&1
        info "bench: whole-guest profile of $2 (symbol):"
        grep -E '^ +[0-9.]+%' "$bench_state/system.txt" | head -n "$KVM_BENCH_SYSTEM_PROFILE" | demangle | cut -c1-160 | bench_log
        ;;
    esac
}
bluez_ready() { dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci0 org.freedesktop.DBus.Properties.Get \
    string:org.bluez.Adapter1 string:Address >/dev/null 2>&1; }

round_ours() {
    local pid output profiler= command=("$KVM_BENCH_BIN/heart-rate-peripheral" --transport hci:0
        --address "$ours_address" --mtu 23 --log-level warning)
    if [[ $rate == 0 ]]; then command+=(--stream); else command+=(--rate "$rate"); fi
    power_on 1
    if [[ -n ${KVM_BENCH_PROFILE:-} ]]; then
        # perf starts it, so every thread it makes later is sampled too.
        perf record -q -e cpu-clock -F 2000 -g -o "$bench_state/perf.data" -- "${command[@]}" >"$bench_state/ours.log" 2>&1 </dev/null &
        profiler=$!
        wait_for 60 pgrep -P "$profiler" >/dev/null
        pid=$(pgrep -P "$profiler")
        if [[ -z $pid ]]; then
            info "bench: perf record did not start heart-rate-peripheral within 60 s"
            kill -KILL "$profiler"; wait "$profiler"
            return
        fi
    else
        "${command[@]}" >"$bench_state/ours.log" 2>&1 </dev/null &
        pid=$!
    fi
    system_profile start
    output=$(central --peer "$ours_address" --peer-type random --measure "$pid" $(system_profile central_args))
    system_profile report "ours round $1"
    if [[ -n $profiler ]]; then
        kill -TERM "$pid"
        wait_for 20 bash -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid"
        wait "$profiler"
        perf report -i "$bench_state/perf.data" --stdio --no-children --sort dso,symbol 2>/dev/null \
            | grep -E '^ +[0-9.]+%' | head -n "${KVM_BENCH_PROFILE}" | demangle | cut -c1-180 | bench_log
        if [[ -n ${KVM_BENCH_CALLERS:-} ]]; then
            perf report -i "$bench_state/perf.data" --stdio --no-children -S "$KVM_BENCH_CALLERS" -G 2>/dev/null \
                | grep -v '^$' | head -n 60 | demangle | cut -c1-200 | bench_log
        fi
    fi
    emit "INFO bench {\"variant\": \"ours\", \"round\": $1, \"result\": $output}"
    jq -e .ok <<<"$output" >/dev/null 2>&1 || tail -n 15 "$bench_state/ours.log" | bench_log
    kill -TERM "$pid"
    wait_for 20 bash -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid"
    wait "$pid" 2>/dev/null
}

round_bluez() {
    local mode=$1 bluetoothd app output address
    /usr/libexec/bluetooth/bluetoothd -n --noplugin=* >"$bench_state/bluetoothd.log" 2>&1 </dev/null &
    bluetoothd=$!
    if ! wait_for 60 bluez_ready; then
        emit "INFO bench {\"variant\": \"$mode\", \"round\": $2, \"result\": {\"ok\": false, \"error\": \"bluetoothd did not publish hci0\"}}"
        bench_log <"$bench_state/bluetoothd.log"
        kill "$bluetoothd"; wait "$bluetoothd"
        return
    fi
    /usr/bin/python3 "$here/bluez_hr_app.py" --mode "$mode" --rate "$rate" >"$bench_state/app.log" 2>&1 </dev/null &
    app=$!
    wait_for 60 grep -q registered "$bench_state/app.log" || info "bench: $mode app not registered: $(tr '\n' ' ' <"$bench_state/app.log" | cut -c1-200)"
    power_on 1
    address=$(/usr/bin/python3 -c "import sys; sys.path.insert(0, '$here'); import att_central; print(att_central.controller_address(0))")
    system_profile start
    output=$(central --peer "$address" --peer-type public --measure "$bluetoothd,$dbus_daemon,$app" $(system_profile central_args))
    system_profile report "$mode round $2"
    emit "INFO bench {\"variant\": \"$mode\", \"round\": $2, \"result\": $output}"
    if ! jq -e .ok <<<"$output" >/dev/null 2>&1; then
        tail -n 15 "$bench_state/bluetoothd.log" | bench_log
        tail -n 15 "$bench_state/app.log" | bench_log
    fi
    kill -TERM "$app" 2>/dev/null; wait "$app" 2>/dev/null
    kill -TERM "$bluetoothd"
    wait_for 20 bash -c "! kill -0 $bluetoothd 2>/dev/null" || kill -KILL "$bluetoothd"
    wait "$bluetoothd" 2>/dev/null
}

bench_run() {
    local round variant
    : "${KVM_BENCH_VARIANTS:=ours,acquire,properties}"
    start_btvirt "$bench_state" || return
    mkdir -p /run/dbus
    # bluetoothd keeps its adapter settings here; the host's /var is read-only in the guest.
    mount -t tmpfs tmpfs /var/lib/bluetooth
    dbus-daemon --system --nofork --nopidfile >"$bench_state/dbus.log" 2>&1 </dev/null &
    dbus_daemon=$!
    # The kernel's view of hci1's buffers (btvirt reports the same count for BR/EDR and LE).
    info "bench: $(nproc) vCPU, btvirt controllers up ($(hciconfig hci1 2>/dev/null | grep -o 'ACL MTU: [0-9:]*' || echo "ACL MTU: ?") bytes:buffers); ${KVM_BENCH_ROUNDS:-3} rounds, $([[ $rate == 0 ]] && echo "streaming" || echo "$rate values/s")"
    for ((round = 1; round <= ${KVM_BENCH_ROUNDS:-3}; round++)); do
        for variant in ${KVM_BENCH_VARIANTS//,/ }; do
            case $variant in
            ours) round_ours "$round" ;;
            *) round_bluez "$variant" "$round" ;;
            esac
        done
    done
    pass bench "${KVM_BENCH_ROUNDS:-3} rounds of $KVM_BENCH_VARIANTS"
    kill "$dbus_daemon" "$btvirt_pid" 2>/dev/null
}

bench_run
