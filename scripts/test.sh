#!/usr/bin/env bash
# Tier 0, what to run after each change: an incremental debug build of everything (tests included)
# with every imported module declared, no compiler warning in our code, then the Swift tests.
# Under five minutes on a two-core machine once .build is warm. scripts/test-all.sh runs this first,
# then the slower tiers.
#
#   scripts/test.sh [test arguments]     e.g. scripts/test.sh --filter GATTServerTests
#
# The test bundle is run directly (arguments go to it, as `swift test` passes them), under a
# watchdog: BLESENSOR_TEST_LIMIT seconds (600), then the unfinished tests and every thread's stack.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT

echo "== swift build (tests included, imports checked)"
swift build --build-tests --explicit-target-dependency-import-check error 2>&1 | tee "$log_dir/build"
# Dependencies' warnings are not ours to fix; ours fail the tier.
if grep -E "^$(pwd)/(Sources|Tests|Benchmarks)/.*warning:" "$log_dir/build"; then
    echo "compiler warnings in our code (listed above)" >&2
    exit 1
fi

echo "== swift test"
# The test bundle is run directly (what `swift test` runs; we have no XCTest cases) so that a
# watchdog knows its pid: a hung test must fail the run with its name and every thread's stack,
# not stall it.
bundle="$(swift build --show-bin-path)/blesensorPackageTests.xctest"
limit=${BLESENSOR_TEST_LIMIT:-600}
events="$log_dir/events.jsonl"
"$bundle" --testing-library swift-testing --event-stream-output-path "$events" --event-stream-version 0 "$@" &
tests=$!
# Interrupted (Ctrl-C, CI's timeout): the bundle in the background would not be.
trap 'kill -KILL "$tests" 2>/dev/null || true; rm -rf "$log_dir"' EXIT
start=$SECONDS
while kill -0 "$tests" 2>/dev/null && (( SECONDS - start < limit )); do sleep 1; done
if kill -0 "$tests" 2>/dev/null; then
    echo "== swift test: still running after $limit s; what it was doing:" >&2
    python3 scripts/unfinished-tests.py "$events" >&2 || true
    echo "-- its child processes:" >&2
    ps -o pid,etimes,args --ppid "$tests" >&2 || true
    echo "-- its threads:" >&2
    # gdb (scripts/install-deps.sh installs it); the toolchain's lldb needs a libpython it may lack.
    if command -v gdb >/dev/null; then
        timeout 120 gdb -batch -p "$tests" -ex "thread apply all bt" 2>/dev/null | grep -E "^(Thread|#)" \
            | { if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi; } >&2 || true
    else
        timeout 120 lldb --batch -p "$tests" -o "thread backtrace all" >&2 || true
    fi
    kill -KILL "$tests" 2>/dev/null || true
    wait "$tests" || true
    echo "== swift test: FAILED, a test hung (above)" >&2
    exit 124
fi
wait "$tests"
