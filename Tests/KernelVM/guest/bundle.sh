# Sourced by the swift and hci groups: run_bundle NAME_PREFIX FILTER DETAIL [KEY=VALUE...] [COMMAND...]
# runs the build's test bundle once with swift-testing's --filter FILTER, the given environment and
# through COMMAND if any (env's syntax: setpriv to drop privileges), and
# reports a PASS or FAIL line per test (NAME_PREFIX-testName, DETAIL on a pass). A bundle that
# fails or runs no test (a filter matching nothing exits 69) is a failure too.
run_bundle() {
    local prefix=$1 filter=$2 detail=$3 bundle=$KVM_BIN/blesensorPackageTests.xctest output status test_name verdict count=0
    shift 3
    if [[ ! -x $bundle ]]; then
        fail "$prefix-tests" "no test bundle at $bundle (swift build --build-tests)"
        return
    fi
    output=$(cd /tmp && env "$@" timeout 300 "$bundle" --testing-library swift-testing --filter "$filter" 2>&1 </dev/null)
    status=$?
    # swift-testing prints one line per test: "✔ Test name() passed after ..." / "✘ Test name() failed ...".
    while read -r test_name verdict; do
        count=$((count + 1))
        if [[ $verdict == passed ]]; then
            pass "$prefix-$test_name" "$detail"
        else
            fail "$prefix-$test_name" "$(grep -F "$test_name" <<<"$output" | tr '\n' ' ' | cut -c1-600)"
        fi
    done < <(sed -nE 's/^.*Test ([A-Za-z0-9_]+)\(\) (passed|failed).*$/\1 \2/p' <<<"$output")
    if ((status != 0 || count == 0)); then
        fail "$prefix-$filter" "the bundle exited $status after $count test(s)"
        send_log <<<"$output"
    fi
}
