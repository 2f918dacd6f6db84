#!/usr/bin/env bash
# Builds and runs the daemon. Without Bluetooth hardware (no hci0) it runs in demo mode on the
# in-process virtual controller, with a simulated phone connecting and disconnecting.
# Extra arguments go to blesensord, e.g. scripts/demo.sh --name my-sensor --log-level debug
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift build -c release --product blesensord
state_dir=${BLESENSOR_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/blesensor}
exec "$(swift build -c release --show-bin-path)/blesensord" --transport auto --state-dir "$state_dir" "$@"
