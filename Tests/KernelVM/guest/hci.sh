# hci group (sourced by run-checks.sh): the test bundle's KernelHCIUserChannelTests on a btvirt
# controller's HCI user channel (packets flushed together, a burst, a packet the kernel refuses, a
# full send buffer), KernelHCIWithoutPrivilegeTests as nobody (EPERM), then KernelHCIUnplugTests,
# which kills btvirt under an open link. Both suites skip unless
# BLESENSOR_TEST_HCI_USER_CHANNEL is set, so `swift test` on a host skips them.
source "$here/btvirt.sh"
source "$here/bundle.sh"
hci_state=/tmp/kvm-hci
mkdir -p "$hci_state"

hci_checks() {
    start_btvirt "$hci_state" || return
    run_bundle hci KernelHCIUserChannelTests "on hci0 (btvirt)" BLESENSOR_TEST_HCI_USER_CHANNEL=0
    # The same socket as nobody: EPERM, and the error that says how to grant CAP_NET_ADMIN.
    run_bundle hci KernelHCIWithoutPrivilegeTests "on hci0 (btvirt) as nobody" BLESENSOR_TEST_HCI_USER_CHANNEL=0 \
        setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --
    # Kills btvirt: last.
    run_bundle hci KernelHCIUnplugTests "on hci0 (btvirt)" BLESENSOR_TEST_HCI_USER_CHANNEL=0 BLESENSOR_TEST_BTVIRT_PID="$btvirt_pid"
    kill "$btvirt_pid" 2>/dev/null
    wait "$btvirt_pid" 2>/dev/null
}

hci_checks
