# hci group (sourced by run-checks.sh): the test bundle's KernelHCIUserChannelTests on a btvirt
# controller's HCI user channel (packets flushed together, a burst, a packet the kernel refuses, a
# full send buffer), KernelHCIWithoutPrivilegeTests as nobody (EPERM), then KernelHCIUnplugTests,
# which kills btvirt under an open link. Both suites skip unless
# BLESENSOR_TEST_HCI_USER_CHANNEL is set, so `swift test` on a host skips them.
source "$here/btvirt.sh"
source "$here/bundle.sh"
hci_state=/tmp/kvm-hci
mkdir -p "$hci_state"

# The kernel frees a sent packet's socket-buffer charge in hci0's transmit work, a kworker that on
# an idle machine runs between two writes: the full-send-buffer test needs it held back. hci0's
# workqueue takes the unbound-workqueue CPU mask it is created under: CPU 0 from before btvirt
# makes the controllers until that suite ends. The suite runs on CPU 0, that test's writer at
# SCHED_FIFO.
workqueue_cpumask=/sys/devices/virtual/workqueue/cpumask
transmit_work_cpu=0

hci_checks() {
    local all_cpus pinned=()
    all_cpus=$(cat "$workqueue_cpumask")
    if printf "%x\n" $((1 << transmit_work_cpu)) >"$workqueue_cpumask"; then
        pinned=(BLESENSOR_TEST_HCI_TX_WORK_CPU=$transmit_work_cpu)
    else
        fail hci-workqueue-cpumask "could not pin unbound workqueues to CPU $transmit_work_cpu ($workqueue_cpumask)"
    fi
    start_btvirt "$hci_state"
    local started=$?
    if ((started == 0)); then
        run_bundle hci KernelHCIUserChannelTests "on hci0 (btvirt)" BLESENSOR_TEST_HCI_USER_CHANNEL=0 "${pinned[@]}" \
            taskset --cpu-list "$transmit_work_cpu"
    fi
    # Back only now: kernels from 6.9 on move ordered workqueues with the mask too.
    echo "$all_cpus" >"$workqueue_cpumask"
    ((started == 0)) || return
    # The same socket as nobody: EPERM, and the error that says how to grant CAP_NET_ADMIN.
    run_bundle hci KernelHCIWithoutPrivilegeTests "on hci0 (btvirt) as nobody" BLESENSOR_TEST_HCI_USER_CHANNEL=0 \
        setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --
    # Kills btvirt: last.
    run_bundle hci KernelHCIUnplugTests "on hci0 (btvirt)" BLESENSOR_TEST_HCI_USER_CHANNEL=0 BLESENSOR_TEST_BTVIRT_PID="$btvirt_pid"
    kill "$btvirt_pid" 2>/dev/null
    wait "$btvirt_pid" 2>/dev/null
}

hci_checks
