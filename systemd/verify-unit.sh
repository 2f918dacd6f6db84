#!/bin/sh
# Checks systemd/blesensord.service with `systemd-analyze verify`.
#
#   systemd/verify-unit.sh [BLESENSORD] [UNIT]
#
# verify requires ExecStart's binary to exist, so the unit is checked from a copy in a temporary
# directory whose ExecStart= (and blesensord ExecStartPre=) names BLESENSORD (default /bin/true,
# which accepts any arguments).
# UNIT defaults to the blesensord.service beside this script; another file (a deliberately broken
# copy, say) must also be named blesensord.service.
#
# In its default mode verify exits 0 on unknown keys and unparsable values ("Unknown key ...,
# ignoring"; systemd 252), and what counts towards its exit status varies by version, so this
# script also fails on ANY line of its output that mentions blesensord.service. Lines about other units
# (bluetooth.service not installed, a distribution unit's syscall the local seccomp does not know)
# are not ours and are only shown. A missing User=/Group= is not checked by verify (only at start).
set -eu

binary=${1:-/bin/true}
unit=${2:-$(dirname "$0")/blesensord.service}
name=blesensord.service

command -v systemd-analyze >/dev/null 2>&1 || { echo "verify-unit: systemd-analyze not found (apt-get install systemd)" >&2; exit 2; }
[ -f "$unit" ] || { echo "verify-unit: no unit file at $unit" >&2; exit 2; }
[ -x "$binary" ] || { echo "verify-unit: $binary is not an executable file" >&2; exit 2; }
[ "$(basename "$unit")" = "$name" ] || { echo "verify-unit: the unit file must be named $name" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/blesensord-verify.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Replace only the program, keep its arguments (and ExecStartPre='s -+ prefixes).
sed -e "s|^ExecStart=[^ ]*|ExecStart=$binary|" \
    -e "s|^\(ExecStartPre=[-+!@:]*\)[^ ]*/blesensord |\1$binary |" "$unit" > "$work/$name"
grep -q "^ExecStart=$binary" "$work/$name" || { echo "verify-unit: $unit has no ExecStart= line" >&2; exit 1; }

status=0
# notice shows warnings and errors only; --man=no: verify would otherwise run man(1) for
# Documentation= lines; --recursive-errors=no: judge this unit, not the host's other units.
output=$(cd "$work" && SYSTEMD_LOG_LEVEL=notice SYSTEMD_LOG_COLOR=0 \
    systemd-analyze verify --man=no --recursive-errors=no "./$name" 2>&1) || status=$?

echo "verify-unit: checked $unit with ExecStart=$(sed -n 's/^ExecStart=//p' "$work/$name")"
sed -n 's/^ExecStartPre=/verify-unit: and ExecStartPre=/p' "$work/$name"
echo "verify-unit: $(systemd-analyze --version | head -n 1)"
if [ -n "$output" ]; then
    echo "verify-unit: systemd-analyze verify printed:"
    printf '%s\n' "$output" | sed 's/^/  /'
fi
ours=$(printf '%s\n' "$output" | grep -F "$name" || true)
if [ "$status" -ne 0 ] || [ -n "$ours" ]; then
    echo "verify-unit: FAILED (exit status $status, $(printf '%s' "$ours" | grep -c . || true) line(s) about $name)" >&2
    exit 1
fi
echo "verify-unit: OK, no warning about $name"
# systemd's own score of the sandboxing (lower is tighter): a change that loosens it past the
# score the unit has reached fails here. systemd before 250 has no --offline: then it is skipped.
exposure_limit=1.8
if exposure=$(cd "$work" && systemd-analyze security --offline=yes "./$name" 2>/dev/null | grep -F 'Overall exposure'); then
    echo "$exposure"
    score=$(printf '%s\n' "$exposure" | sed -n 's/.*: \([0-9][0-9.]*\).*/\1/p')
    if [ -n "$score" ] && awk -v score="$score" -v limit="$exposure_limit" 'BEGIN { exit !(score > limit) }'; then
        echo "verify-unit: FAILED: exposure $score is above $exposure_limit; keep the sandbox at least as tight" >&2
        exit 1
    fi
else
    echo "verify-unit: systemd-analyze security --offline is unavailable here; exposure not checked"
fi
