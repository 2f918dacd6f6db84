#!/usr/bin/env bash
# Runs the blesensord interop tests against Bumble's virtual controller.
# Usage: BLESENSORD=/path/to/blesensord Tests/Interop/run-tests.sh [pytest args]
# (typically BLESENSORD="$(swift build --show-bin-path)/blesensord").
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
exec "$venv/bin/python" -m pytest -q "$@" "$here"
