#!/usr/bin/env bash
# Benchmark, not a test: notification cost on the real kernel's HCI path, ours against BlueZ in the
# same VM run. Debian's kernel under QEMU (TCG) with two btvirt LE controllers on one emulated air;
# the kernel's own host is the central on hci1 (guest/att_central.py); on hci0, in alternating
# rounds (guest/bench.sh):
#   ours        heart-rate-peripheral --stream on the HCI user channel
#   acquire     bluetoothd + dbus-daemon + a GATT application notifying through AcquireNotify
#   properties  bluetoothd + dbus-daemon + a GATT application notifying through PropertiesChanged
# The same 20-octet Heart Rate Measurement at ATT MTU 23 each time (heart-rate-peripheral's --rate
# sends 2-octet ones). Figures, between the 1000th and the 5000th notification the central received
# (start-up, connection and discovery cancel out):
#   CPU         user+sys of every peripheral-side process (/proc/PID/stat, so threads that exit
#               in the window count too) per notification
#   guest CPU   all busy CPU time of the guest (/proc/stat: kernel workqueues, btvirt, the central
#               included) per notification, since the kernel does much of BlueZ's work outside
#               bluetoothd; then split by command, thread by thread (schedstat)
#   rate        notifications per second;  wake-ups  voluntary context switches of the
#               peripheral-side threads per notification (each a sleep and a wake-up), and
#               preempted  the involuntary ones (lower bounds when threads exit);  RSS  at the 5000th.
# Under emulation only the ratios mean anything; they are printed against ours.
#
#   Tests/KernelVM/bench-notify-bluez.sh [--bin DIR] [--rounds N] [--smp N] [--rate R] [--profile N] [--variants LIST] [--acl-buffers N] [--system-profile N]
#
# --bin: where heart-rate-peripheral is (default .build/release: swift build -c release --product
# heart-rate-peripheral); --rounds: rounds of the three (default 3); --smp: guest vCPUs (default 1);
# --rate: R values a second (heart-rate-peripheral --rate, a timer in the BlueZ applications) instead
# of a stream, figures between the 200th and the 1200th: the cost of a timer-driven value.
# --profile: print the top N of a perf profile of ours in each round (needs linux-perf); --variants:
# a comma-separated subset of ours,acquire,properties; --acl-buffers: LE ACL buffers per controller
# (default 1, Debian's btvirt; others build a btvirt with build-btvirt.sh, which needs gcc and curl);
# --system-profile: print the top N (command, object) pairs of a whole-guest profile of each round.
# Needs what scripts/install-deps.sh installs for the kernel tests (bluez, dbus, python3-dbus, python3-gi).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=$repo/.build/release rounds=3 smp=1 rate=0 profile= variants=ours,acquire,properties buffers=1 system_profile=
while (($#)); do
    case $1 in
    --bin) bin=${2:?}; shift 2 ;;
    --rounds) rounds=${2:?}; shift 2 ;;
    --smp) smp=${2:?}; shift 2 ;;
    --profile) profile=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    --variants) variants=${2:?}; shift 2 ;;
    --acl-buffers) buffers=${2:?}; shift 2 ;;
    --system-profile) system_profile=${2:?}; shift 2 ;;
    *) sed -n '/^#   Tests/p' "$0" | sed 's/^#   /usage: /' >&2; exit 2 ;;
    esac
done
[[ -x $bin/heart-rate-peripheral ]] || {
    echo "bench: no $bin/heart-rate-peripheral: swift build -c release --product heart-rate-peripheral" >&2
    exit 1
}
for tool in /usr/libexec/bluetooth/bluetoothd dbus-daemon dbus-send; do
    command -v "$tool" >/dev/null || { echo "bench: $tool is missing: run scripts/install-deps.sh" >&2; exit 1; }
done
/usr/bin/python3 -c 'import dbus, gi' 2>/dev/null || { echo "bench: python3-dbus and python3-gi are missing: run scripts/install-deps.sh" >&2; exit 1; }

if [[ -n $profile$system_profile ]]; then
    command -v perf >/dev/null || { echo "bench: --profile and --system-profile need perf: apt-get install linux-perf" >&2; exit 1; }
fi
bin=$(realpath "$bin")
btvirt_env=()
if [[ $buffers != 1 ]]; then
    btvirt=$("$here/build-btvirt.sh" "$buffers" "$repo/.build-vm")
    btvirt_env=(--env "KVM_BTVIRT=$(realpath "$btvirt")")
fi
KERNEL_TESTS_TIMEOUT=${KERNEL_TESTS_TIMEOUT:-$((300 + rounds * 900))} "$here/run-kernel-tests.sh" --groups bench --bin "$bin" \
    --smp "$smp" --env "KVM_BENCH_BIN=$bin" --env "KVM_BENCH_ROUNDS=$rounds" --env "KVM_BENCH_VARIANTS=$variants" --env "KVM_BENCH_RATE=$rate" "${btvirt_env[@]}" ${profile:+--env "KVM_BENCH_PROFILE=$profile"} ${system_profile:+--env "KVM_BENCH_SYSTEM_PROFILE=$system_profile"} | grep -v '^ *[0-9.]* s  bench {'
/usr/bin/python3 - "$repo/.build-vm/kernel-tests/last-run/results.log" <<'PY'
import json, statistics, sys

runs = {}
for line in open(sys.argv[1]):
    _, _, text = line.strip().partition(' ')
    if not text.startswith('INFO bench {'):
        continue
    record = json.loads(text[len('INFO bench '):])
    result = record['result']
    if not result.get('ok') or len(result.get('figures', [])) < 2:
        print(f"{record['variant']} round {record['round']}: failed: {result.get('error')}")
        continue
    first, last = result['figures'][0], result['figures'][-1]
    n = last['count'] - first['count']
    # Thread by thread: one born in the window counts whole; one that exited in it took its counts
    # along, so by-thread figures are lower bounds (the process CPU includes exited threads).
    before = first.get('guest_threads', {})
    threads = {tid: (label, name, *(now - was for now, was in zip(counts, before.get(tid, [0] * 5)[2:])))
               for tid, (label, name, *counts) in last.get('guest_threads', {}).items()}
    exited = sum(1 for tid, entry in before.items() if entry[0] == 'peripheral' and tid not in last.get('guest_threads', {}))
    by_command, wakeups_by_command = {}, {}
    for label, name, cpu, voluntary, involuntary in threads.values():
        by_command[label] = by_command.get(label, 0) + cpu / n * 1e6
        wakeups_by_command[label] = wakeups_by_command.get(label, 0) + voluntary / n
    by_command['irq+softirq'] = (last.get('guest_interrupts', 0) - first.get('guest_interrupts', 0)) / n * 1e6
    ours_threads = [entry for entry in threads.values() if entry[0] == 'peripheral']
    runs.setdefault(record['variant'], []).append({
        'cpu_us': (last['cpu'] - first['cpu']) / n * 1e6,
        'guest_us': (last['guest_busy'] - first['guest_busy']) / n * 1e6,
        'rate': n / (last['time'] - first['time']),
        'wakeups': sum(entry[3] for entry in ours_threads) / n,
        'preemptions': sum(entry[4] for entry in ours_threads) / n,
        'threads': {f"{name}[{tid}]": entry[3] / n for tid, entry in threads.items() if entry[0] == 'peripheral'
                    for name in [entry[1]]},
        'exited': exited,
        'rss_mb': last['rss_kib'] / 1024,
        'by_command': by_command,
        'wakeups_by_command': wakeups_by_command,
        # The central does the same work per notification whatever the peripheral, so figures in
        # its units cancel the emulator's speed, which moves every process of a round alike (±25%).
        'cpu_per_central': (last['cpu'] - first['cpu']) / n * 1e6 / by_command.get('central', float('nan')),
        'rate_times_central': n / (last['time'] - first['time']) * by_command.get('central', float('nan')),
    })
if 'ours' not in runs:
    sys.exit('bench: no round of ours finished')
median = {v: {k: statistics.median(r[k] for r in rs) for k in rs[0] if k not in ('threads', 'by_command', 'wakeups_by_command', 'exited')} for v, rs in runs.items()}
print(f"{'variant':<11} {'rounds':>6} {'CPU µs/notif':>13} {'guest CPU µs/notif':>19} {'notif/s':>8} {'wake-ups/notif':>15} {'preempted/notif':>16} {'RSS MB':>7}   (medians; per-round CPU)")
for variant in ('ours', 'acquire', 'properties'):
    if variant in median:
        m = median[variant]
        each = ' '.join(f"{r['cpu_us']:.0f}" for r in runs[variant])
        print(f"{variant:<11} {len(runs[variant]):>6} {m['cpu_us']:>13.0f} {m['guest_us']:>19.0f} {m['rate']:>8.0f} {m['wakeups']:>15.2f} {m['preemptions']:>16.2f} {m['rss_mb']:>7.1f}   ({each})")
for variant in ('ours', 'acquire', 'properties'):
    if variant in runs:
        busiest = sorted(runs[variant][0]['threads'].items(), key=lambda item: -item[1])[:6]
        exited = runs[variant][0]['exited']
        print(f"{variant} wake-ups per notification by thread (first round): "
              + ', '.join(f"{name.split(':', 1)[1]} {value:.2f}" for name, value in busiest)
              + (f"; {exited} thread(s) exited in the window (their wake-ups not counted)" if exited else ''))
for variant in ('ours', 'acquire', 'properties'):
    if variant in runs:
        heaviest = sorted(runs[variant][0]['by_command'].items(), key=lambda item: -item[1])[:8]
        print(f"{variant} guest CPU µs per notification by command (first round): "
              + ', '.join(f"{name} {value:.0f}" for name, value in heaviest if value >= 1))
        wakeful = sorted(runs[variant][0]['wakeups_by_command'].items(), key=lambda item: -item[1])[:8]
        print(f"{variant} guest wake-ups per notification by command (first round): "
              + ', '.join(f"{name} {value:.2f}" for name, value in wakeful if value >= 0.01))
ours = median['ours']
for variant in ('acquire', 'properties'):
    if variant in median:
        m = median[variant]
        print(f"{variant} / ours: CPU per notification {m['cpu_us'] / ours['cpu_us']:.2f}x, guest CPU per notification "
              f"{m['guest_us'] / ours['guest_us']:.2f}x, rate {m['rate'] / ours['rate']:.2f}x, RSS {m['rss_mb'] / ours['rss_mb']:.2f}x")
        theirs_each = ' '.join(f"{r['cpu_per_central']:.2f}" for r in runs[variant])
        ours_each = ' '.join(f"{r['cpu_per_central']:.2f}" for r in runs['ours'])
        print(f"{variant} / ours in units of the central's CPU (each round's speed cancelled): CPU per notification "
              f"{m['cpu_per_central'] / ours['cpu_per_central']:.2f}x, rate {m['rate_times_central'] / ours['rate_times_central']:.2f}x "
              f"(peripheral / central CPU per round: ours {ours_each}; {variant} {theirs_each})")
PY
