# hci group (sourced by run-checks.sh): the test bundle's KernelHCIUserChannelTests on a btvirt
# controller's HCI user channel (packets flushed together, a burst, a packet the kernel refuses),
# then KernelHCIUnplugTests, which kills btvirt under an open link. Both suites skip unless
# BLESENSOR_TEST_HCI_USER_CHANNEL is set, so `swift test` on a host skips them.
source "$here/btvirt.sh"
hci_state=/tmp/kvm-hci
mkdir -p "$hci_state"

# run_bundle SUITE: one filtered run of the bundle; a PASS or FAIL line per test.
run_bundle() {
    local suite=$1 bundle=$KVM_BIN/blesensorPackageTests.xctest output status test_name verdict count=0
    output=$(cd /tmp && BLESENSOR_TEST_HCI_USER_CHANNEL=0 BLESENSOR_TEST_BTVIRT_PID=$btvirt_pid timeout 300 "$bundle" \
        --testing-library swift-testing --filter "$suite" 2>&1 </dev/null)
    status=$?
    while read -r test_name verdict; do
        count=$((count + 1))
        if [[ $verdict == passed ]]; then
            pass "hci-$test_name" "$suite on hci0 (btvirt)"
        else
            fail "hci-$test_name" "$(grep -F "$test_name" <<<"$output" | tr '\n' ' ' | cut -c1-600)"
        fi
    done < <(sed -nE 's/^.*Test ([A-Za-z0-9_]+)\(\) (passed|failed).*$/\1 \2/p' <<<"$output")
    if ((status != 0 || count == 0)); then
        fail "hci-$suite" "the bundle exited $status after $count test(s)"
        send_log <<<"$output"
    fi
}

hci_checks() {
    if [[ ! -x $KVM_BIN/blesensorPackageTests.xctest ]]; then
        fail hci-tests "no test bundle at $KVM_BIN/blesensorPackageTests.xctest (swift build --build-tests)"
        return
    fi
    start_btvirt "$hci_state" || return
    run_bundle KernelHCIUserChannelTests
    # Kills btvirt: last.
    run_bundle KernelHCIUnplugTests
    kill "$btvirt_pid" 2>/dev/null
    wait "$btvirt_pid" 2>/dev/null
}

hci_checks
