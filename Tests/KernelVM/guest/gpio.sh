# gpio group (sourced by run-checks.sh): `blesensor sensor read gpio-pulse` on a gpio-sim line named
# GPIO17 (as on a Raspberry Pi), pulsed by writing pull-up / pull-down to the line's sysfs `pull`
# attribute (guest/pulse.py), which gpio-sim turns into real edge events on the requested input line. Runs the build's
# binary (libgpiod 1.6) and, when the host gave KVM_GPIOD2_BIN/KVM_GPIOD2_LIB, a libgpiod 2.x build.

# 75 bpm: one rising edge every 800 ms, each pulse 100 ms wide (the receiver counts rising edges).
pulse_period=0.8 pulse_width=0.1
# The expectation comes from the edges actually made, not from the nominal rate: a loaded TCG guest
# can run a pulse late. pulse.py brackets each edge between two CLOCK_MONOTONIC stamps (the kernel
# stamps it inside that write), so RR interval i must lie between the generator's stamps:
# [before(i+1) - after(i), after(i+1) - before(i)], widened by 0.5 ms for the CLI's rounding to
# whole ms; the rate must lie between 60000 / the upper and lower bounds of the mean of the last
# min(8, n) intervals (the receiver's window), widened by 0.5 bpm for its rounding.
gpio_setup() {
    local config=/sys/kernel/config/gpio-sim/kvm
    modprobe configfs
    mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
    insmod "$KVM_GPIO_SIM/irq_sim.ko" && insmod "$KVM_GPIO_SIM/gpio-sim.ko" || return 1
    mkdir "$config" "$config/bank0" "$config/bank0/line17" || return 1
    echo 28 >"$config/bank0/num_lines" || return 1
    echo GPIO17 >"$config/bank0/line17/name" || return 1
    echo 1 >"$config/live" || return 1
    sim_chip=$(cat "$config/bank0/chip_name")
    sim_pull=/sys/devices/platform/$(cat "$config/dev_name")/$sim_chip/sim_gpio17/pull
    [[ -n $sim_chip && -w $sim_pull ]]
}

line_requested() { gpioinfo "$sim_chip" 2>/dev/null | grep -E '"GPIO17"' | grep -q '"blesensor"'; }

# compare_with_edges CLI_OUTPUT EDGE_LOG: "ok DETAIL" when the printed RR intervals and rate match the
# edges pulse.py made (see the bounds above), else the first mismatch.
compare_with_edges() {
    awk -v nominal="$pulse_period" '
        FILENAME == ARGV[1] {
            if (match($0, /^gpio-pulse: [0-9]+ bpm/)) { split($0, words, " "); bpm = words[2] }
            if (index($0, "RR ms: ")) { n = split(substr($0, index($0, "RR ms: ") + 7), rr, " ") }
            next
        }
        { before[edges + 0] = $1 / 1e6; after[edges + 0] = $2 / 1e6; edges++ }
        END {
            if (bpm == "" || n == 0) { print "no rate or RR intervals printed"; exit }
            if (n > edges - 1) { printf "%d RR intervals printed, only %d edges made\n", n, edges; exit }
            for (i = 0; i < n; i++) {
                low = before[i + 1] - after[i] - 0.5; high = after[i + 1] - before[i] + 0.5
                if (rr[i + 1] < low || rr[i + 1] > high) {
                    printf "RR %d is %s ms, the edges made it %.1f...%.1f ms\n", i + 1, rr[i + 1], low, high; exit
                }
            }
            first = n > 8 ? n - 8 : 0
            for (i = first; i < n; i++) { lowSum += before[i + 1] - after[i]; highSum += after[i + 1] - before[i] }
            count = n - first
            fastest = 60000 / (lowSum / count) + 0.5; slowest = 60000 / (highSum / count) - 0.5
            if (bpm < slowest || bpm > fastest) { printf "%s bpm, the edges made %.1f...%.1f bpm\n", bpm, slowest, fastest; exit }
            printf "ok %d RR intervals within the edges made, rate within %.1f...%.1f bpm (nominal %.0f)\n", n, slowest, fastest, 60 / nominal
        }' "$1" "$2"
}

# gpio_pulse_check NAME BIN_DIR [LIB_DIR]
gpio_pulse_check() {
    local name=$1 dir=$2 lib=${3:-} out status verdict done_flag reader
    done_flag=$(mktemp -u)
    out=$(mktemp)
    (
        [[ -n $lib ]] && export LD_LIBRARY_PATH=$lib
        timeout 60 "$dir/blesensor" sensor read gpio-pulse --chip "$sim_chip" --line GPIO17 --seconds 8 >"$out" 2>&1 </dev/null
        echo $? >"$out.status"
        touch "$done_flag"
    ) &
    reader=$!
    # Pulses only once the line is requested: before that there is no edge detection to see them.
    if ! wait_for 30 line_requested; then
        wait "$reader"
        fail "$name" "GPIO17 on $sim_chip was never requested by blesensor: $(tr '\n' ' ' <"$out")"
        gpioinfo "$sim_chip" 2>&1 | send_log
        rm -f "$out" "$out.status" "$done_flag"
        return
    fi
    python3 "$here/pulse.py" "$sim_pull" "$pulse_period" "$pulse_width" "$done_flag" >"$out.edges"
    wait "$reader"
    status=$(cat "$out.status")
    verdict=$(compare_with_edges "$out" "$out.edges")
    if [[ $status == 0 && $verdict == ok* ]]; then
        pass "$name" "$(cat "$out"); ${verdict#ok }"
    else
        fail "$name" "exit $status: $(tr '\n' ' ' <"$out"); ${verdict#ok }"
    fi
    rm -f "$out" "$out.status" "$out.edges" "$done_flag"
}

if [[ -z ${KVM_GPIO_SIM:-} ]]; then
    fail gpio-sim "the host built no gpio-sim modules (KVM_GPIO_SIM)"
elif ! gpio_setup; then
    fail gpio-sim "could not create a gpio-sim chip"
    dmesg | tail -n 20 | send_log
else
    info "gpio-sim chip $sim_chip, line GPIO17, pull at $sim_pull"
    gpio_pulse_check gpio-pulse-libgpiod1 "$KVM_BIN"
    if [[ -n ${KVM_GPIOD2_BIN:-} ]]; then
        linked=$(LD_LIBRARY_PATH=$KVM_GPIOD2_LIB ldd "$KVM_GPIOD2_BIN/blesensor" | grep -o 'libgpiod[^ ]* => [^ ]*' | tr '\n' ' ')
        # libgpiod 2.x is libgpiod.so.3; anything else would test 1.6 a second time.
        if [[ $linked == *"libgpiod.so.3 => $KVM_GPIOD2_LIB/"* ]]; then
            info "libgpiod 2.x build: $linked"
            gpio_pulse_check gpio-pulse-libgpiod2 "$KVM_GPIOD2_BIN" "$KVM_GPIOD2_LIB"
        else
            fail gpio-pulse-libgpiod2 "$KVM_GPIOD2_BIN/blesensor does not load libgpiod.so.3 from $KVM_GPIOD2_LIB: ${linked:-no libgpiod}"
        fi
    else
        skip gpio-pulse-libgpiod2 "no libgpiod 2.x build given (--gpiod2-bin DIR --gpiod2-lib DIR)"
    fi
fi
