#!/usr/bin/env bash
# Builds and runs the daemon on the simulated board: every sensor is a simulated chip and a
# built-in virtual central connects, subscribes and prints the decoded readings. With Bluetooth
# hardware (hci0) present, the same board is served through it instead of the virtual controller.
# Extra arguments go to blesensord, e.g. scripts/demo.sh --name my-sensor --log-level debug.
# While it runs, `$(swift build -c release --show-bin-path)/blesensor status` shows its state.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
swift build -c release --product blesensord
swift build -c release --product blesensor
exec "$(swift build -c release --show-bin-path)/blesensord" --board simulated --transport auto "$@"
