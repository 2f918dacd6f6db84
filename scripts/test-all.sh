#!/usr/bin/env bash
# Runs every test: the Swift unit and integration tests, then the interop tests against Google's
# Bumble on a virtual radio. Installs what it needs first (apt packages, the Python venv).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== swift build (tests included)"
build_log=$(mktemp)
swift build --build-tests 2>&1 | tee "$build_log"
# Our code must build without warnings (dependencies are not ours to fix).
if grep -E "^$(pwd)/(Sources|Tests)/.*warning:" "$build_log"; then
    echo "compiler warnings in our code (listed above)" >&2
    exit 1
fi

echo "== swift test"
swift test --skip-build

echo "== interop tests against Bumble"
BLESENSORD="$(swift build --show-bin-path)/blesensord" Tests/Interop/run-tests.sh
