#!/usr/bin/env bash
# Runs the blesensord interop tests against Bumble's virtual controller.
# Usage: BLESENSORD=/path/to/blesensord Tests/Interop/run-tests.sh [pytest args]
# Runs two tests at a time (pytest-xdist; every test has its own harness port, state directory and
# control socket); INTEROP_JOBS=N changes that, and -n in the arguments overrides it.
# (typically BLESENSORD="$(swift build --show-bin-path)/blesensord").
# Optional: HEART_RATE_PERIPHERAL=/path/to/heart-rate-peripheral runs the GATT
# interop tests (test_gatt_*.py) against the example; they are skipped without it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -z "${BLESENSORD:-}" ]]; then
    echo "run-tests.sh: BLESENSORD is not set; set it to the blesensord binary," \
         "e.g. BLESENSORD=\"\$(swift build --show-bin-path)/blesensord\"" >&2
    exit 2
fi
if [[ ! -x "$BLESENSORD" ]]; then
    echo "run-tests.sh: BLESENSORD=$BLESENSORD is not an executable file;" \
         "build it first with 'swift build --product blesensord'" >&2
    exit 2
fi
BLESENSORD="$(cd "$(dirname "$BLESENSORD")" && pwd)/$(basename "$BLESENSORD")"
export BLESENSORD

if [[ -n "${HEART_RATE_PERIPHERAL:-}" ]]; then
    if [[ ! -x "$HEART_RATE_PERIPHERAL" ]]; then
        echo "run-tests.sh: HEART_RATE_PERIPHERAL=$HEART_RATE_PERIPHERAL is not an executable file;" \
             "build it first with 'swift build --product heart-rate-peripheral'" >&2
        exit 2
    fi
    HEART_RATE_PERIPHERAL="$(cd "$(dirname "$HEART_RATE_PERIPHERAL")" && pwd)/$(basename "$HEART_RATE_PERIPHERAL")"
    export HEART_RATE_PERIPHERAL
fi

venv="$here/.venv"
python="${PYTHON:-python3}"
if [[ ! -x "$venv/bin/python" ]]; then
    "$python" -m venv "$venv"
fi
# Refresh only when the requirements changed since the last install.
stamp="$venv/.requirements.installed"
if [[ ! -f "$stamp" ]] || ! cmp -s "$here/requirements.txt" "$stamp"; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$stamp"
fi

cd "$here"
export PATH="$venv/bin:$PATH"
jobs=(-n "${INTEROP_JOBS:-2}")
for argument in "$@"; do
    case $argument in -n|-n[0-9]*|--numprocesses*) jobs=() ;; esac
done
exec "$venv/bin/python" -m pytest -q "${jobs[@]}" "$@" "$here"
