#!/usr/bin/env bash
# Captures what a real Bluetooth controller answers, so that an assumed profile in
# Tests/ControllerProfiles/profiles.json becomes a measured one.
#
# Run it once, as root, on the Raspberry Pi (Raspberry Pi OS with BlueZ; blesensord need not be
# installed):
#     sudo scripts/capture-controller.sh [--adapter hci0] [--btmon SECONDS] > profile.json
# and send back the controller-capture-<hostname>-<date>.tar.gz it names at the end.
#
# What it does: stops blesensord.service if it runs (and starts it again at the end, also after an
# error or Ctrl-C), makes sure the adapter is up under BlueZ, sends the controller the commands
# below with `hcitool cmd` and keeps every raw answer, tries LE Set Event Mask 0x27F / 0x3F / 0x1F
# and Set Event Mask Page 2 (then power-cycles the adapter so BlueZ sets its own masks again), and
# collects uname, the board model, `hciconfig -a`, Bluetooth lines of dmesg and the OS release.
# It prints one JSON object in the profiles.json format on stdout (progress goes to stderr).
# With --btmon SECONDS it also records `btmon -w` while blesensord starts (the daemon's own
# bring-up with this controller), for SECONDS seconds.
#
# Exit status: 0 done; 2 usage or environment error (not root, no hcitool, no such adapter);
# 3 the controller's answers could not be read (the tarball is still written: send it anyway).
set -euo pipefail

readonly PROGRAM=capture-controller.sh
readonly UNIT=blesensord.service
readonly HCITOOL_TIMEOUT=5   # seconds: hcitool cmd blocks for ever when no answer comes

usage() {
    cat <<'EOF'
Usage: sudo scripts/capture-controller.sh [options] > profile.json

Asks the Bluetooth controller directly (hcitool cmd) what it is and what it supports, and writes
controller-capture-<hostname>-<date>.tar.gz (raw answers, system details) plus, on stdout, a JSON
object in the format of Tests/ControllerProfiles/profiles.json. Stops blesensord.service while it
runs and starts it again afterwards. Takes about 10 seconds (plus --btmon SECONDS).

Options:
  --adapter hciN     the adapter to ask (default: hci0)
  --btmon SECONDS    also record `btmon -w` for SECONDS seconds while blesensord.service starts
                     (default: off; needs btmon and an installed blesensord.service)
  --output DIR       where to write the capture directory and tarball (default: current directory)
  --name NAME        the profile's "name" (default: measured-<board model>)
  -h, --help         this text

Send back the .tar.gz named at the end (and the JSON it printed).
Exit status: 0 done, 2 usage or environment error, 3 the controller's answers were unreadable.
EOF
}

log() { printf '%s: %s\n' "$PROGRAM" "$*" >&2; }
die() { local status=$1; shift; printf '%s: error: %s\n' "$PROGRAM" "$*" >&2; exit "$status"; }

original_args=$*
adapter=hci0
btmon_seconds=0
output_parent=.
profile_name=
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --adapter) [[ $# -ge 2 ]] || die 2 "--adapter needs a value, e.g. --adapter hci0"; adapter=$2; shift 2 ;;
        --adapter=*) adapter=${1#*=}; shift ;;
        --btmon) [[ $# -ge 2 ]] || die 2 "--btmon needs a number of seconds"; btmon_seconds=$2; shift 2 ;;
        --btmon=*) btmon_seconds=${1#*=}; shift ;;
        --output) [[ $# -ge 2 ]] || die 2 "--output needs a directory"; output_parent=$2; shift 2 ;;
        --output=*) output_parent=${1#*=}; shift ;;
        --name) [[ $# -ge 2 ]] || die 2 "--name needs a value"; profile_name=$2; shift 2 ;;
        --name=*) profile_name=${1#*=}; shift ;;
        *) usage >&2; die 2 "unknown argument '$1'" ;;
    esac
done
[[ $adapter =~ ^hci[0-9]+$ ]] || die 2 "--adapter must look like hci0, hci1, ... (got '$adapter')"
[[ $btmon_seconds =~ ^[0-9]+$ ]] || die 2 "--btmon takes a whole number of seconds (got '$btmon_seconds')"
readonly adapter_index=${adapter#hci}

# --- Environment checks -------------------------------------------------------------------------
# CAPTURE_CONTROLLER_ALLOW_NON_ROOT=1 is for the tests only (Tests/Interop/test_capture_controller.py
# runs this script against stub hcitool/hciconfig/systemctl); a real capture needs root.
if [[ $(id -u) -ne 0 && ${CAPTURE_CONTROLLER_ALLOW_NON_ROOT:-} != 1 ]]; then
    die 2 "run it as root: sudo $0 $original_args"
fi
command -v hcitool >/dev/null 2>&1 \
    || die 2 "hcitool not found; install BlueZ's tools: sudo apt install bluez"
command -v hciconfig >/dev/null 2>&1 \
    || die 2 "hciconfig not found; install BlueZ's tools: sudo apt install bluez"
command -v python3 >/dev/null 2>&1 || die 2 "python3 not found: sudo apt install python3"
command -v tar >/dev/null 2>&1 || die 2 "tar not found"
if [[ $btmon_seconds -gt 0 ]] && ! command -v btmon >/dev/null 2>&1; then
    die 2 "--btmon needs btmon (sudo apt install bluez), or leave --btmon out"
fi
[[ -d $output_parent && -w $output_parent ]] || die 2 "--output $output_parent is not a writable directory"

have() { command -v "$1" >/dev/null 2>&1; }

# --- State restored at exit ----------------------------------------------------------------------
daemon_was_active=0      # blesensord was running (or restarting) when we started
daemon_stopped=0         # we stopped it and have not started it again
daemon_started=0         # we started it for --btmon though it was not running before
probed=0                 # the controller's event masks were changed and BlueZ has not re-set them
adapter_was_up=1         # the adapter was UP before we touched it
btmon_pid=
hcitool_child=           # an hcitool cmd still waiting for its answer
capture_dir=

cleanup() {
    local status=$?
    set +e
    trap - INT TERM
    if [[ -n $hcitool_child ]]; then
        kill "$hcitool_child" 2>/dev/null
        wait "$hcitool_child" 2>/dev/null
        hcitool_child=
    fi
    if [[ -n $btmon_pid ]]; then
        kill "$btmon_pid" 2>/dev/null
        wait "$btmon_pid" 2>/dev/null
        btmon_pid=
    fi
    [[ $probed -eq 1 ]] && restore_bluez
    if [[ $daemon_stopped -eq 1 ]]; then
        log "starting $UNIT again"
        systemctl --no-block start "$UNIT" || log "could not start $UNIT again: sudo systemctl start $UNIT"
        daemon_stopped=0
    fi
    if [[ $daemon_started -eq 1 ]]; then
        log "stopping $UNIT again (it was not running before)"
        systemctl stop "$UNIT"
    fi
    if [[ $status -ne 0 && $status -ne 3 && -n $capture_dir ]]; then
        log "stopped (exit $status); partial capture left in $capture_dir"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT
trap 'log "terminated"; exit 143' TERM

# Power-cycles the adapter through BlueZ, which then runs its whole init again (Reset and its own
# event masks); `hciconfig reset` would only send HCI Reset and leave the masks at their defaults.
restore_bluez() {
    probed=0
    local record=$capture_dir/restore.txt
    if [[ $adapter_was_up -eq 0 ]]; then
        log "putting $adapter down again, as it was"
        hciconfig "$adapter" down >>"$record" 2>&1 || log "could not put $adapter down: sudo hciconfig $adapter down"
        return 0
    fi
    log "power-cycling $adapter so that BlueZ sets its own event masks again"
    if have btmgmt \
        && timeout 10 btmgmt --index "$adapter_index" power off </dev/null >>"$record" 2>&1 \
        && timeout 10 btmgmt --index "$adapter_index" power on </dev/null >>"$record" 2>&1; then
        return 0
    fi
    { hciconfig "$adapter" down && hciconfig "$adapter" up; } >>"$record" 2>&1 \
        || log "could not power-cycle $adapter: sudo hciconfig $adapter down; sudo hciconfig $adapter up"
}

adapter_info() { hciconfig "$adapter" 2>&1; }
adapter_is_up() { local info; info=$(adapter_info) && [[ $info == *"UP RUNNING"* ]]; }

# --- Capture directory --------------------------------------------------------------------------
host=$(uname -n)
stamp=$(date -u +%Y%m%dT%H%M%SZ)
day=$(date -u +%Y-%m-%d)
capture_name="controller-capture-${host}-${stamp}"
capture_dir="$output_parent/$capture_name"
mkdir -p "$capture_dir/commands"
log "writing to $capture_dir"

# --- Stop blesensord ------------------------------------------------------------------------------
unit_state=inactive
if have systemctl; then
    unit_state=$(systemctl is-active "$UNIT" 2>/dev/null) || true
fi
case $unit_state in
    active|activating|reloading|deactivating)
        daemon_was_active=1
        log "stopping $UNIT (it is $unit_state; started again at the end)"
        systemctl stop "$UNIT" || die 1 "could not stop $UNIT: sudo systemctl stop $UNIT"
        daemon_stopped=1
        ;;
esac

# --- The adapter, up under BlueZ ----------------------------------------------------------------
# After the daemon lets go of the user channel the kernel hands the adapter back; give it a moment.
for _ in 1 2 3 4 5 6 7 8 9 10; do
    adapter_info >/dev/null && break
    sleep 0.5
done
if ! info=$(adapter_info); then
    present=$(hciconfig 2>/dev/null | sed -n 's/^\(hci[0-9][0-9]*\):.*/\1/p' | tr '\n' ' ') || true
    printf '%s\n' "$info" >"$capture_dir/hciconfig-error.txt"
    die 2 "no adapter $adapter (hciconfig: ${info//$'\n'/ }). Adapters present: ${present:-none}." \
        "On a Raspberry Pi check 'dmesg | grep -i -E \"blue|hci|brcm\"' and that hciuart.service runs;" \
        "for another adapter use --adapter hciN"
fi
if ! adapter_is_up; then
    adapter_was_up=0
    log "$adapter is down; bringing it up"
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        hciconfig "$adapter" up >>"$capture_dir/hciconfig-up.txt" 2>&1 || true
        adapter_is_up && break
        sleep 0.5
    done
    if ! adapter_is_up; then
        die 2 "could not bring $adapter up: $(tail -n 1 "$capture_dir/hciconfig-up.txt" 2>/dev/null)." \
            "If rfkill blocks it: sudo rfkill unblock bluetooth; if another program holds it" \
            "(a Bluetooth daemon other than bluetoothd), stop that first"
    fi
fi

# bluetoothd follows a power-on with commands of its own (name, class, advertising); let them pass
# so that hcitool, which prints the first event it sees, mostly meets its own answer.
if [[ $daemon_stopped -eq 1 || $adapter_was_up -eq 0 ]]; then sleep 1; fi

# --- System details -----------------------------------------------------------------------------
model=
if [[ -r /proc/device-tree/model ]]; then
    model=$(tr -d '\0' </proc/device-tree/model) || true
    printf '%s\n' "$model" >"$capture_dir/device-tree-model.txt"
fi
[[ -n $model ]] || model="$host ($(uname -m))"
uname -a >"$capture_dir/uname.txt" 2>&1 || true
for release in /etc/os-release /etc/rpi-issue /etc/debian_version; do
    if [[ -r $release ]]; then cp "$release" "$capture_dir/$(basename "$release").txt" || true; fi
done
hciconfig -a "$adapter" >"$capture_dir/hciconfig-a.txt" 2>&1 || true
if have dmesg; then
    { dmesg 2>&1 | grep -i -E 'blue|hci|bcm|brcm'; } >"$capture_dir/dmesg-bluetooth.txt" || true
fi
if have rfkill; then rfkill list >"$capture_dir/rfkill.txt" 2>&1 || true; fi
if have btmgmt; then timeout 10 btmgmt --index "$adapter_index" info </dev/null >"$capture_dir/btmgmt-info.txt" 2>&1 || true; fi
if have dpkg-query; then
    # shellcheck disable=SC2016 # dpkg-query's own ${...} format, not the shell's
    dpkg-query -W -f '${Package} ${Version}\n' bluez 'blesensor*' >"$capture_dir/packages.txt" 2>&1 || true
fi
printf 'adapter %s\nblesensord was %s\nadapter was %s\n' "$adapter" "$unit_state" \
    "$([[ $adapter_was_up -eq 1 ]] && echo up || echo down)" >"$capture_dir/context.txt"

# --- Ask the controller -------------------------------------------------------------------------
# ask NAME OGF OCF [PARAMETER BYTES...]: runs hcitool cmd and keeps everything it printed in
# commands/NAME.txt. hcitool prints the first event that arrives, which is not always the answer
# (an advertising report, a Number Of Completed Packets): up to 3 tries until a Command Complete or
# Command Status for this opcode shows up. The parser below checks every answer again, fully.
ask() {
    local name=$1 ogf=$2 ocf=$3; shift 3
    local file=$capture_dir/commands/$name.txt output status attempt lo hi answer
    local opcode=$(((ogf << 10) | ocf))
    printf -v lo '%02X' $((opcode & 0xFF))
    printf -v hi '%02X' $((opcode >> 8))
    # "> HCI Event: 0x0e plen N" then "  NN LO HI ..." (Command Complete: credits, opcode), or
    # "> HCI Event: 0x0f plen 4" then "  ST NN LO HI" (Command Status), as hcitool prints them.
    answer="> HCI Event: 0x0[eEfF] plen [0-9]+"$'\n'" *[0-9A-F]{2} ([0-9A-F]{2} )?$lo $hi"
    for attempt in 1 2 3; do
        printf '$ hcitool -i %s cmd %s %s %s\n' "$adapter" "$ogf" "$ocf" "$*" >>"$file"
        # In the background and waited for: bash runs the INT trap at once during `wait`, whereas
        # a foreground child that exits normally makes it drop a Ctrl-C (and hcitool, under
        # timeout in its own process group, never sees it).
        timeout "$HCITOOL_TIMEOUT" hcitool -i "$adapter" cmd "$ogf" "$ocf" "$@" >"$capture_dir/hcitool.out" 2>&1 &
        hcitool_child=$!
        if wait "$hcitool_child"; then status=0; else status=$?; fi
        hcitool_child=
        output=$(<"$capture_dir/hcitool.out")
        printf '%s\n# exit status %s\n' "$output" "$status" >>"$file"
        if [[ ${output^^} =~ ${answer^^} ]]; then return 0; fi
        if [[ $status -eq 124 ]]; then break; fi   # no answer at all: retrying only takes longer
        if [[ $attempt -lt 3 ]]; then sleep 0.2; fi
    done
    log "no usable answer to $name ($ogf $ocf); its raw output is kept"
}

log "asking $adapter"
ask read_local_version                  0x04 0x0001
ask read_local_supported_commands       0x04 0x0002
ask read_local_supported_features       0x04 0x0003
ask read_local_extended_features_page1  0x04 0x0004 01
ask read_buffer_size                    0x04 0x0005
ask read_bd_addr                        0x04 0x0009
ask le_read_buffer_size_v1              0x08 0x0002
ask le_read_buffer_size_v2              0x08 0x0060
ask le_read_local_supported_features    0x08 0x0003
ask le_read_supported_states            0x08 0x001C
# From here on the controller's state differs from what BlueZ set: restored by restore_bluez.
probed=1
# The host's LE event mask and NimBLE's fallbacks (bits 0-6 and 9; 4.1: 0-5; 4.0: 0-4), 8 bytes LE.
ask le_set_event_mask_0x27f             0x08 0x0001 7f 02 00 00 00 00 00 00
ask le_set_event_mask_0x3f              0x08 0x0001 3f 00 00 00 00 00 00 00
ask le_set_event_mask_0x1f              0x08 0x0001 1f 00 00 00 00 00 00 00
# What the host sends on Page 2: Encryption Change v2 (bit 25).
ask set_event_mask_page2                0x03 0x0063 00 00 00 02 00 00 00 00
restore_bluez

# --- Optional: the daemon's own bring-up under btmon ----------------------------------------------
if [[ $btmon_seconds -gt 0 ]]; then
    if have systemctl && systemctl cat "$UNIT" >/dev/null 2>&1; then
        log "recording btmon for ${btmon_seconds}s while $UNIT starts"
        since=$(date '+%Y-%m-%d %H:%M:%S')
        btmon -w "$capture_dir/blesensord-bringup.btsnoop" >"$capture_dir/btmon.txt" 2>&1 &
        btmon_pid=$!
        sleep 1
        systemctl --no-block restart "$UNIT" || log "could not start $UNIT"
        if [[ $daemon_stopped -eq 1 ]]; then daemon_stopped=0; else daemon_started=1; fi
        sleep "$btmon_seconds"
        kill "$btmon_pid" 2>/dev/null || true
        wait "$btmon_pid" 2>/dev/null || true
        btmon_pid=
        if have journalctl; then
            journalctl -u "$UNIT" --since "$since" --no-pager >"$capture_dir/blesensord-journal.txt" 2>&1 || true
        fi
        if [[ $daemon_started -eq 1 ]]; then
            log "stopping $UNIT again (it was not running before)"
            daemon_started=0
            systemctl stop "$UNIT" || true
        fi
    else
        log "$UNIT is not installed: --btmon skipped"
    fi
fi

# --- Decode, and the profile --------------------------------------------------------------------
parse_status=0
python3 - "$capture_dir" "$model" "$day" "$profile_name" "$adapter" <<'PY' >"$capture_dir/profile.json" || parse_status=$?
"""Decodes commands/*.txt (hcitool cmd output) into summary.json and prints the profile.

Every decoder is total: output that is missing, short, garbled or answers another opcode makes
that field "unknown" (its raw text goes to "unparsed"), never an exception. Only an unreadable
Read Local Version Information is fatal (exit 3): then nothing here is about a working controller.
"""
import json
import re
import sys
import traceback
from pathlib import Path

# The commands our host may use and their Supported_Commands (octet, bit): keep in sync with
# `positions` in Sources/HCI/Commands/HCISupportedCommands.swift (a test compares the two).
POSITIONS = [
    ("disconnect", 0x0406, 0, 5),
    ("readRemoteVersionInformation", 0x041d, 2, 7),
    ("setEventMask", 0x0c01, 5, 6),
    ("reset", 0x0c03, 5, 7),
    ("readLocalVersionInformation", 0x1001, 14, 3),
    ("readLocalSupportedFeatures", 0x1003, 14, 5),
    ("readBufferSize", 0x1005, 14, 7),
    ("readBDADDR", 0x1009, 15, 1),
    ("setEventMaskPage2", 0x0c63, 22, 2),
    ("writeLEHostSupport", 0x0c6d, 24, 6),
    ("leSetEventMask", 0x2001, 25, 0),
    ("leReadBufferSize", 0x2002, 25, 1),
    ("leReadLocalSupportedFeatures", 0x2003, 25, 2),
    ("leSetRandomAddress", 0x2005, 25, 4),
    ("leSetAdvertisingParameters", 0x2006, 25, 5),
    ("leReadAdvertisingChannelTxPower", 0x2007, 25, 6),
    ("leSetAdvertisingData", 0x2008, 25, 7),
    ("leSetScanResponseData", 0x2009, 26, 0),
    ("leSetAdvertisingEnable", 0x200a, 26, 1),
    ("leSetScanParameters", 0x200b, 26, 2),
    ("leSetScanEnable", 0x200c, 26, 3),
    ("leCreateConnection", 0x200d, 26, 4),
    ("leCreateConnectionCancel", 0x200e, 26, 5),
    ("leConnectionUpdate", 0x2013, 27, 2),
    ("leEnableEncryption", 0x2019, 28, 0),
    ("leLongTermKeyRequestReply", 0x201a, 28, 1),
    ("leLongTermKeyRequestNegativeReply", 0x201b, 28, 2),
    ("leReadSupportedStates", 0x201c, 28, 3),
    ("leRemoteConnectionParameterRequestReply", 0x2020, 33, 4),
    ("leRemoteConnectionParameterRequestNegativeReply", 0x2021, 33, 5),
    ("leSetDataLength", 0x2022, 33, 6),
    ("leReadSuggestedDefaultDataLength", 0x2023, 33, 7),
    ("leWriteSuggestedDefaultDataLength", 0x2024, 34, 0),
    ("leReadMaximumDataLength", 0x202f, 35, 3),
    ("leReadBufferSizeV2", 0x2060, 41, 5),
]

# What ask() sent, by file name: the opcode whose Command Complete answers it.
COMMANDS = {
    "read_local_version": 0x1001,
    "read_local_supported_commands": 0x1002,
    "read_local_supported_features": 0x1003,
    "read_local_extended_features_page1": 0x1004,
    "read_buffer_size": 0x1005,
    "read_bd_addr": 0x1009,
    "le_read_buffer_size_v1": 0x2002,
    "le_read_buffer_size_v2": 0x2060,
    "le_read_local_supported_features": 0x2003,
    "le_read_supported_states": 0x201C,
    "le_set_event_mask_0x27f": 0x2001,
    "le_set_event_mask_0x3f": 0x2001,
    "le_set_event_mask_0x1f": 0x2001,
    "set_event_mask_page2": 0x0C63,
}

# A guess for the "chip" text only (manufacturer, LMP subversion), from the profiles' sources.
KNOWN_CHIPS = {
    (15, 0x6119): "CYW43455 (BCM4345C0)", (305, 0x6119): "CYW43455 (BCM4345C0)",
    (15, 0x6606): "BCM4345C5", (15, 0x2209): "BCM43430A1 / BCM43436", (10, 0x22BB): "CSR8510",
}

EVENT_LINE = re.compile(r"^>\s*HCI Event:\s*0x([0-9A-Fa-f]{1,2})\s+plen\s+(\d+)")
HEX_BYTE = re.compile(r"^[0-9A-Fa-f]{2}$")
EXIT_LINE = re.compile(r"^# exit status (\d+)$", re.M)


class Unknown(Exception):
    """A value that could not be read; the message says why."""


def events(text):
    """Every '> HCI Event: 0xNN plen N' in hcitool output with the hex bytes printed under it."""
    found, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        match = EVENT_LINE.match(lines[i].strip())
        i += 1
        if not match:
            continue
        data = []
        while i < len(lines):
            tokens = lines[i].split()
            if not tokens or not all(HEX_BYTE.match(t) for t in tokens):
                break
            data += [int(t, 16) for t in tokens]
            i += 1
        found.append((int(match.group(1), 16), int(match.group(2)), bytes(data)))
    return found


class Answer:
    """One command's outcome: status and return parameters (after the status), or why unknown."""

    def __init__(self, name, directory):
        self.name, self.opcode = name, COMMANDS[name]
        self.status, self.parameters, self.error = None, b"", None
        path = directory / "commands" / f"{name}.txt"
        try:
            self.raw = path.read_text(errors="replace")
        except OSError as error:
            self.raw, self.error = "", f"no output ({error.strerror or error})"
            return
        try:
            self.status, self.parameters = self._decode()
        except Unknown as error:
            self.error = str(error)

    def _decode(self):
        seen = events(self.raw)
        if not seen:
            codes = EXIT_LINE.findall(self.raw)
            if codes and codes[-1] == "124":
                raise Unknown("no answer within the timeout")
            raise Unknown("no HCI event in hcitool's output" + (f" (exit status {codes[-1]})" if codes else ""))
        problems = []
        for code, plen, data in reversed(seen):
            if len(data) != plen:
                problems.append(f"event 0x{code:02x}: plen {plen} but {len(data)} bytes")
                continue
            if code == 0x0E and len(data) >= 3:
                opcode = data[1] | data[2] << 8
                if opcode != self.opcode:
                    problems.append(f"Command Complete for 0x{opcode:04x}")
                    continue
                if len(data) < 4:
                    problems.append("Command Complete without a status")
                    continue
                return data[3], data[4:]
            if code == 0x0F and len(data) >= 4:
                opcode = data[2] | data[3] << 8
                if opcode != self.opcode:
                    problems.append(f"Command Status for 0x{opcode:04x}")
                    continue
                if data[0] == 0:
                    problems.append("Command Status 0x00 (pending) and no Command Complete")
                    continue
                return data[0], b""
            problems.append(f"event 0x{code:02x} ({len(data)} bytes)")
        raise Unknown(f"no answer to opcode 0x{self.opcode:04x}: " + "; ".join(problems))

    def ok(self, length):
        """The return parameters after a success status, at least `length` bytes long."""
        if self.error:
            raise Unknown(self.error)
        if self.status != 0:
            raise Unknown(f"status 0x{self.status:02x}")
        if len(self.parameters) < length:
            raise Unknown(f"{len(self.parameters) + 1} return bytes, expected {length + 1}")
        return self.parameters

    def last_attempt(self):
        """The last hcitool run's output on one line (all of them are in commands/), or ""."""
        lines = [line.strip() for line in self.raw.split("\n$ hcitool")[-1].splitlines()[1:] if line.strip()]
        text = " | ".join(lines)
        return f" | raw: {text[:300]}{'...' if len(text) > 300 else ''}" if text else ""

    def record(self):
        return {
            "opcode": f"0x{self.opcode:04x}",
            "status": None if self.status is None else f"0x{self.status:02x}",
            "return_parameters": " ".join(f"{b:02x}" for b in self.parameters),
            "error": self.error,
        }


def u16(data, offset):
    return data[offset] | data[offset + 1] << 8


def u64(data, offset):
    return int.from_bytes(data[offset:offset + 8], "little")


def main():
    directory, model, day, name, adapter = Path(sys.argv[1]), *sys.argv[2:6]
    answers = {command: Answer(command, directory) for command in COMMANDS}
    values, unparsed, assumed = {}, {}, ["completions"]

    def field(key, decode, source):
        """values[key] = decode(), or "unknown" with the raw text kept."""
        try:
            values[key] = decode()
            return True
        except Unknown as error:
            values[key] = "unknown"
            unparsed[key] = f"{source}: {error}" + answers[source].last_attempt()
            assumed.append(key)
            return False

    version = answers["read_local_version"]
    try:
        p = version.ok(8)
        hci_version, hci_revision, lmp_version = p[0], u16(p, 1), p[3]
        manufacturer, lmp_subversion = u16(p, 4), u16(p, 6)
    except Unknown as error:
        lines = version.raw.strip().splitlines()
        shown = " | ".join(lines[-6:]) if lines else "(nothing)"
        print(f"capture-controller.sh: error: the controller's answer to Read Local Version Information "
              f"(0x04 0x0001) is unreadable: "
              f"{error}. hcitool printed: {shown}", file=sys.stderr)
        write_summary(directory, answers, {"fatal": str(error)})
        return 3

    field("lmp_features", lambda: f"0x{u64(answers['read_local_supported_features'].ok(8), 0):016x}",
          "read_local_supported_features")
    field("le_features", lambda: f"0x{u64(answers['le_read_local_supported_features'].ok(8), 0):016x}",
          "le_read_local_supported_features")
    field("le_states", lambda: f"0x{u64(answers['le_read_supported_states'].ok(8), 0):016x}",
          "le_read_supported_states")

    def le_buffers():
        p = answers["le_read_buffer_size_v1"].ok(3)
        return [u16(p, 0), p[2]]

    def acl_buffers():
        p = answers["read_buffer_size"].ok(7)
        return [u16(p, 0), u16(p, 3)]

    field("le_acl_buffers", le_buffers, "le_read_buffer_size_v1")
    field("acl_buffers", acl_buffers, "read_buffer_size")

    listed = {}
    def not_listed():
        octets = answers["read_local_supported_commands"].ok(64)
        for command, opcode, octet, bit in POSITIONS:
            listed[opcode] = bool(octets[octet] >> bit & 1)
        return [f"0x{opcode:04x}" for _, opcode, _, _ in POSITIONS if not listed[opcode]]
    field("commands_not_listed", not_listed, "read_local_supported_commands")

    # The LE event mask ladder: the largest mask accepted once 0x27F is refused.
    strict, mask_statuses = {}, {}
    for mask in ("0x27f", "0x3f", "0x1f"):
        answer = answers[f"le_set_event_mask_{mask}"]
        mask_statuses[mask] = answer.status if answer.error is None else None
    if mask_statuses["0x27f"] is None:
        assumed.append("le_event_mask_limit")
        first = answers["le_set_event_mask_0x27f"]
        unparsed["le_event_mask_limit"] = f"le_set_event_mask_0x27f: {first.error}" + first.last_attempt()
    elif mask_statuses["0x27f"] != 0:
        limit = next((mask for mask in ("0x3f", "0x1f") if mask_statuses[mask] == 0), None)
        if limit:
            strict["le_event_mask_limit"] = limit
        else:
            assumed.append("le_event_mask_limit")
            unparsed["le_event_mask_limit"] = "every LE event mask tried (0x27f, 0x3f, 0x1f) was refused or unanswered: " + \
                ", ".join(f"{m}: {'?' if s is None else f'0x{s:02x}'}" for m, s in mask_statuses.items())

    # Optional commands the controller lists but refuses (the LE mask is covered by the ladder).
    refuse = {}
    for command in ("set_event_mask_page2", "le_read_buffer_size_v2", "le_read_supported_states"):
        answer = answers[command]
        if answer.error is None and answer.status != 0 and listed.get(answer.opcode):
            refuse[f"0x{answer.opcode:04x}"] = f"0x{answer.status:02x}"
    if refuse:
        strict["refuse"] = refuse

    completions_count = values["acl_buffers"][1] if isinstance(values["acl_buffers"], list) else 8
    if isinstance(values["le_acl_buffers"], list) and values["le_acl_buffers"][1]:
        completions_count = values["le_acl_buffers"][1]

    guess = KNOWN_CHIPS.get((manufacturer, lmp_subversion))
    chip = (f"probably {guess}: " if guess else "") + \
        f"manufacturer {manufacturer}, LMP subversion 0x{lmp_subversion:04x}, measured on {model} ({adapter})"
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") or "controller"
    profile = {
        "name": name or f"measured-{slug}",
        "chip": chip,
        "hci_version": hci_version, "hci_revision": f"0x{hci_revision:04x}", "lmp_version": lmp_version,
        "manufacturer": manufacturer, "lmp_subversion": f"0x{lmp_subversion:04x}",
        **{key: values[key] for key in ("lmp_features", "le_features", "le_states", "le_acl_buffers",
                                          "acl_buffers", "commands_not_listed")},
        "strict": strict,
        "completions": {"interval_ms": 30, "max_per_event": completions_count},
        "sources": [f"scripts/capture-controller.sh on {model}, {day}"],
        "assumed": assumed,
    }
    if unparsed:
        profile["unparsed"] = unparsed

    extra = {}
    try:
        p = answers["read_local_extended_features_page1"].ok(10)
        extra["extended_features_page1"] = {"page": p[0], "max_page": p[1], "features": f"0x{u64(p, 2):016x}"}
    except Unknown as error:
        extra["extended_features_page1"] = f"unknown: {error}"
    try:
        p = answers["read_bd_addr"].ok(6)
        extra["bd_addr"] = ":".join(f"{b:02X}" for b in reversed(p[:6]))
    except Unknown as error:
        extra["bd_addr"] = f"unknown: {error}"
    try:
        p = answers["le_read_buffer_size_v2"].ok(6)
        extra["le_read_buffer_size_v2"] = {"acl": [u16(p, 0), p[2]], "iso": [u16(p, 3), p[5]]}
    except Unknown as error:
        extra["le_read_buffer_size_v2"] = f"unknown: {error}"
    extra["le_event_mask_statuses"] = {m: None if s is None else f"0x{s:02x}" for m, s in mask_statuses.items()}
    extra["profile"] = profile
    write_summary(directory, answers, extra)
    print(render(profile))
    for key, why in unparsed.items():
        print(f"unknown {key}: {why[:300]}", file=sys.stderr)
    return 0


def write_summary(directory, answers, extra):
    summary = {"commands": {name: answer.record() for name, answer in answers.items()}, **extra}
    (directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def render(profile):
    """The profile laid out as Tests/ControllerProfiles/profiles.json does, ready to paste."""
    groups = [["name"], ["chip"], ["hci_version", "hci_revision", "lmp_version", "manufacturer", "lmp_subversion"],
              ["lmp_features"], ["le_features"], ["le_states"], ["le_acl_buffers", "acl_buffers"],
              ["commands_not_listed"], ["strict"], ["completions"], ["sources"], ["assumed"], ["unparsed"]]
    lines = []
    for group in groups:
        keys = [key for key in group if key in profile]
        if keys:
            lines.append("      " + ", ".join(f"{json.dumps(k)}: {json.dumps(profile[k])}" for k in keys))
    return "    {\n" + ",\n".join(lines) + "\n    }"


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # a bug here must not hide the capture: say so in one line, keep the details
        detail = traceback.format_exc()
        try:
            (Path(sys.argv[1]) / "parse-error.txt").write_text(detail)
        except Exception:
            pass
        print(f"capture-controller.sh: error: decoding the capture failed: {detail.strip().splitlines()[-1]} "
              f"(details in parse-error.txt; the raw answers are kept)", file=sys.stderr)
        sys.exit(4)
PY

# --- The tarball ----------------------------------------------------------------------------------
tarball="$output_parent/$capture_name.tar.gz"
tar -czf "$tarball" -C "$output_parent" "$capture_name" || die 1 "could not write $tarball"

if [[ $parse_status -ne 0 ]]; then
    log "the controller's answers could not be decoded; the raw outputs are in $capture_dir"
    log "please send back $tarball anyway"
    exit 3
fi
cat "$capture_dir/profile.json"
log "done: send back $tarball (and the JSON above, also in $capture_dir/profile.json)"
