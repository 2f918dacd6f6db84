"""scripts/capture-controller.sh without Bluetooth: stub hcitool, hciconfig, systemctl, btmgmt,
dmesg, btmon and journalctl first on PATH replay a controller's answers (the CYW43455 / BCM4345C5
numbers of a public Pi 400 `hciconfig -a`), and the JSON the script prints must be the profile
those answers describe. Needs neither Bumble nor the daemon."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / 'scripts' / 'capture-controller.sh'
SWIFT_POSITIONS = ROOT / 'Sources' / 'HCI' / 'Commands' / 'HCISupportedCommands.swift'

# hciconfig -a of a Pi 400 (wiki.kewl.org/dokuwiki/interfaces:bluetooth), address made up.
HCICONFIG_A = """hci0:\tType: Primary  Bus: UART
\tBD Address: DC:A6:32:00:00:01  ACL MTU: 1021:8  SCO MTU: 64:1
\t{state}
\tRX bytes:1484 acl:0 sco:0 events:92 errors:0
\tTX bytes:1286 acl:0 sco:0 commands:92 errors:0
\tFeatures: 0xbf 0xfe 0xcf 0xfe 0xdb 0xff 0x7b 0x87
\tPacket type: DM1 DM3 DM5 DH1 DH3 DH5 HV1 HV2 HV3
\tLink policy: RSWITCH SNIFF
\tLink mode: SLAVE ACCEPT
\tName: 'raspberrypi'
\tClass: 0x000000
\tHCI Version: 5.0 (0x9)  Revision: 0x36
\tLMP Version: 5.0 (0x9)  Subversion: 0x6606
\tManufacturer: Broadcom Corporation (15)
"""

# One program for every stub; it acts on the name it is called by. State and the scenario live in
# $STUB_DIR; every call is appended to $STUB_DIR/calls.log.
STUB = r'''
import json, os, sys, time
from pathlib import Path

tool, args = Path(sys.argv[0]).name, sys.argv[1:]
state_dir = Path(os.environ['STUB_DIR'])
scenario = json.loads((state_dir / 'scenario.json').read_text())
with open(state_dir / 'calls.log', 'a') as log:
    log.write(' '.join([tool, *args]) + '\n')

def state(name, default):
    path = state_dir / name
    return path.read_text() if path.exists() else default

def set_state(name, value):
    (state_dir / name).write_text(value)

def dump(prefix, data):
    for i in range(0, len(data), 20):
        print(prefix + ''.join(f'{b:02X} ' for b in data[i:i + 20]))

if tool == 'hcitool':
    assert args[0] == '-i' and args[2] == 'cmd', args
    ogf, ocf = int(args[3], 16), int(args[4], 16)
    parameters = bytes(int(a, 16) for a in args[5:])
    opcode = ogf << 10 | ocf
    key = f'0x{opcode:04x}'
    if opcode == 0x2001:
        key += f':0x{int.from_bytes(parameters, "little"):x}'
    calls = int(state('count-' + key, '0')) + 1
    set_state('count-' + key, str(calls))
    answer = scenario['answers'].get(key, {'status': 1})
    if calls == 1 and 'first' in answer:
        answer = answer['first']
    if 'hang' in answer:
        set_state('hanging', key)
        # The test's barrier: a pipe it reads, inherited through the script.
        if 'STUB_HANG_FD' in os.environ:
            os.write(int(os.environ['STUB_HANG_FD']), b'h')
        time.sleep(answer['hang'])
    print(f'< HCI Command: ogf 0x{ogf:02x}, ocf 0x{ocf:04x}, plen {len(parameters)}')
    dump('  ', parameters)
    if 'raw' in answer:
        sys.stdout.write(answer['raw'])
        sys.exit(answer.get('exit', 0))
    if 'event' in answer:
        code, data = answer['event'], bytes.fromhex(answer['bytes'])
    else:
        code = 0x0E
        data = bytes([1, opcode & 0xFF, opcode >> 8, answer['status']]) + bytes.fromhex(answer.get('parameters', ''))
    print(f'> HCI Event: 0x{code:02x} plen {len(data)}')
    dump('  ', data)
elif tool == 'hciconfig':
    adapters = scenario['adapters']
    if not args:
        for name in adapters:
            print(f'{name}:\tType: Primary  Bus: UART\n\tBD Address: DC:A6:32:00:00:01  ACL MTU: 1021:8  SCO MTU: 64:1\n')
        sys.exit(0)
    name = args[-1] if args[0] == '-a' else args[0]
    if name not in adapters:
        print("Can't get device info: No such device", file=sys.stderr)
        sys.exit(1)
    if len(args) == 2 and args[1] in ('up', 'down'):
        set_state('adapter', 'UP RUNNING' if args[1] == 'up' else 'DOWN')
        sys.exit(0)
    text = scenario['hciconfig_a'].format(state=state('adapter', scenario['adapter_state']))
    print(text if args[0] == '-a' else '\n'.join(text.splitlines()[:3]))
elif tool == 'systemctl':
    args = [a for a in args if a != '--no-block']
    verb, unit = args[0], args[-1]
    assert unit == 'blesensord.service', args
    if verb == 'is-active':
        current = state('unit', scenario['unit_state'])
        print(current)
        sys.exit(0 if current == 'active' else 3)
    if verb == 'cat':
        sys.exit(0 if scenario['unit_installed'] else 1)
    set_state('unit', 'inactive' if verb == 'stop' else 'active')
elif tool == 'btmon':
    Path(args[args.index('-w') + 1]).write_bytes(b'btsnoop\0')
    print('Bluetooth monitor ver 5.66', flush=True)
    time.sleep(60)
elif tool == 'dmesg':
    print('[    6.1] Bluetooth: hci0: BCM: chip id 129\n[    6.2] usb 1-1: new high-speed USB device')
elif tool == 'journalctl':
    print('-- No entries --')
'''

STUBS = ['hcitool', 'hciconfig', 'systemctl', 'btmgmt', 'dmesg', 'btmon', 'journalctl']


def swift_positions() -> dict[int, tuple[int, int]]:
    """`positions` of HCISupportedCommands.swift as {opcode: (octet, bit)}."""
    opcodes = {}
    for source in (ROOT / 'Sources' / 'HCI').rglob('*.swift'):
        for name, ogf, ocf in re.findall(
                r'static let (\w+) = HCIOpcode\(ogf: (0x[0-9A-Fa-f]+), ocf: (0x[0-9A-Fa-f]+)\)', source.read_text()):
            opcodes[name] = int(ogf, 16) << 10 | int(ocf, 16)
    table = re.search(r'static let positions: [^=]*= \[(.*?)\n\s*\]', SWIFT_POSITIONS.read_text(), re.S).group(1)
    return {opcodes[name]: (int(octet), int(bit))
            for name, octet, bit in re.findall(r'\.(\w+): \((\d+), (\d+)\)', table)}


def script_positions() -> dict[int, tuple[int, int]]:
    return {int(opcode, 16): (int(octet), int(bit)) for opcode, octet, bit in
            re.findall(r'^\s+\("\w+", (0x[0-9a-f]{4}), (\d+), (\d+)\),$', SCRIPT.read_text(), re.M)}


def supported_commands(missing: set[int]) -> str:
    octets = bytearray(64)
    for opcode, (octet, bit) in swift_positions().items():
        if opcode not in missing:
            octets[octet] |= 1 << bit
    return octets.hex()


def answers(*, refusing: bool) -> dict:
    """A BCM4345C5 (Pi 400): HCI 5.0 rev 0x36, Broadcom (15), LMP subversion 0x6606, the
    CYW43455's features, ACL 1021 x 8 and no LE buffers; LE Read Buffer Size v2 not listed.
    `refusing`: LE Set Event Mask 0x27F gets 0x12 and Page 2 (listed) gets 0x01."""
    return {
        '0x1001': {'status': 0, 'parameters': '09 3600 09 0f00 0666'},
        '0x1002': {'status': 0, 'parameters': supported_commands({0x2060})},
        '0x1003': {'status': 0, 'parameters': 'bf fe cf fe db ff 7b 87'},
        '0x1004': {'status': 0, 'parameters': '01 02 0f00000000000000'},
        '0x1005': {'status': 0, 'parameters': 'fd03 40 0800 0100'},
        '0x1009': {'status': 0, 'parameters': '01 00 00 32 a6 dc'},
        '0x2002': {'status': 0, 'parameters': '0000 00'},
        '0x2003': {'status': 0, 'parameters': '2f00000000000000'},
        # The first try meets an unrelated LE Meta event, as hcitool may; the second gets the answer.
        '0x201c': {'status': 0, 'parameters': 'ffffffffff030000',
                   'first': {'event': 0x3E, 'bytes': '02 01 00 00 01 02 03 04 05 06 00 b5'}},
        '0x2001:0x27f': {'status': 0x12 if refusing else 0},
        '0x2001:0x3f': {'status': 0},
        '0x2001:0x1f': {'status': 0},
        '0x0c63': {'status': 0x01 if refusing else 0},
    }


EXPECTED = {
    'hci_version': 9, 'hci_revision': '0x0036', 'lmp_version': 9, 'manufacturer': 15,
    'lmp_subversion': '0x6606', 'lmp_features': '0x877bffdbfecffebf', 'le_features': '0x000000000000002f',
    'le_states': '0x000003ffffffffff', 'le_acl_buffers': [0, 0], 'acl_buffers': [1021, 8],
    'commands_not_listed': ['0x2060'],
}
PROFILE_KEYS = ['name', 'chip', 'hci_version', 'hci_revision', 'lmp_version', 'manufacturer', 'lmp_subversion',
                'lmp_features', 'le_features', 'le_states', 'le_acl_buffers', 'acl_buffers', 'commands_not_listed',
                'strict', 'completions', 'sources', 'assumed']


class Capture:
    def __init__(self, tmp_path: Path, answers: dict, *, adapter_state='UP RUNNING', unit_state='active',
                 unit_installed=True):
        self.tmp_path = tmp_path
        self.stub_dir = tmp_path / 'stub-state'
        self.bin = tmp_path / 'bin'
        self.out = tmp_path / 'out'
        for directory in (self.stub_dir, self.bin, self.out):
            directory.mkdir()
        (self.stub_dir / 'scenario.json').write_text(json.dumps({
            'answers': answers, 'adapters': ['hci0'], 'adapter_state': adapter_state, 'hciconfig_a': HCICONFIG_A,
            'unit_state': unit_state, 'unit_installed': unit_installed,
        }))
        for tool in STUBS:
            stub = self.bin / tool
            stub.write_text(f'#!{sys.executable}\n{STUB}')
            stub.chmod(0o755)
        self.env = {**os.environ, 'PATH': f'{self.bin}:{os.environ["PATH"]}', 'STUB_DIR': str(self.stub_dir),
                    'CAPTURE_CONTROLLER_ALLOW_NON_ROOT': '1'}

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), '--output', str(self.out), *args], env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def calls(self, tool: str) -> list[str]:
        log = self.stub_dir / 'calls.log'
        lines = log.read_text().splitlines() if log.exists() else []
        return [line for line in lines if line.split()[0] == tool]

    def tarball(self) -> Path:
        [tarball] = self.out.glob('controller-capture-*.tar.gz')
        return tarball

    def members(self) -> set[str]:
        with tarfile.open(self.tarball()) as tar:
            return {name.split('/', 1)[1] for name in tar.getnames() if '/' in name}


def check_no_traceback(result: subprocess.CompletedProcess) -> None:
    assert 'Traceback' not in result.stderr + result.stdout, result.stderr


def check_daemon_restored(capture: Capture) -> None:
    verbs = [call.split()[1] for call in capture.calls('systemctl') if call.split()[1] != '--no-block'] + \
            [call.split()[2] for call in capture.calls('systemctl') if call.split()[1] == '--no-block']
    assert 'stop' in verbs and 'start' in verbs, capture.calls('systemctl')
    assert (capture.stub_dir / 'unit').read_text() == 'active'


def test_capture_controller_accepting(tmp_path):
    capture = Capture(tmp_path, answers(refusing=False))
    result = capture.run()
    assert result.returncode == 0, result.stderr
    check_no_traceback(result)
    profile = json.loads(result.stdout)
    assert list(profile)[:len(PROFILE_KEYS)] == PROFILE_KEYS
    assert {key: profile[key] for key in EXPECTED} == EXPECTED
    assert profile['strict'] == {}
    assert profile['assumed'] == ['completions']
    assert profile['completions'] == {'interval_ms': 30, 'max_per_event': 8}
    assert 'unparsed' not in profile
    assert re.fullmatch(r'scripts/capture-controller\.sh on .+, \d{4}-\d{2}-\d{2}', profile['sources'][0])
    assert profile['chip'].startswith('probably BCM4345C5')
    # It stopped the running daemon and started it again; the masks it changed were re-set by BlueZ.
    check_daemon_restored(capture)
    assert capture.calls('btmgmt')[-2:] == ['btmgmt --index 0 power off', 'btmgmt --index 0 power on']
    members = capture.members()
    for name in ('uname.txt', 'hciconfig-a.txt', 'dmesg-bluetooth.txt', 'os-release.txt', 'profile.json',
                 'summary.json', 'commands/read_local_version.txt', 'commands/le_set_event_mask_0x27f.txt'):
        assert name in members, sorted(members)
    summary = json.loads((next(capture.out.glob('controller-capture-*/')) / 'summary.json').read_text())
    assert summary['bd_addr'] == 'DC:A6:32:00:00:01'
    assert summary['extended_features_page1'] == {'page': 1, 'max_page': 2, 'features': '0x000000000000000f'}
    assert summary['commands']['le_read_buffer_size_v2']['status'] == '0x01'
    # Read Supported States met an unrelated event first and was asked again.
    assert sum('cmd 0x08 0x001C' in call for call in capture.calls('hcitool')) == 2
    assert len(capture.calls('hcitool')) == 14 + 1


def test_capture_controller_refusing(tmp_path):
    """LE Set Event Mask 0x27F refused with 0x12, Page 2 listed but answered 0x01."""
    capture = Capture(tmp_path, answers(refusing=True))
    result = capture.run()
    assert result.returncode == 0, result.stderr
    check_no_traceback(result)
    profile = json.loads(result.stdout)
    assert {key: profile[key] for key in EXPECTED} == EXPECTED
    assert profile['strict'] == {'le_event_mask_limit': '0x3f', 'refuse': {'0x0c63': '0x01'}}
    assert profile['strict']['le_event_mask_limit'] == '0x3f'
    summary = json.loads((next(capture.out.glob('controller-capture-*/')) / 'summary.json').read_text())
    assert summary['le_event_mask_statuses'] == {'0x27f': '0x12', '0x3f': '0x00', '0x1f': '0x00'}
    check_daemon_restored(capture)


def test_capture_controller_garbage(tmp_path):
    """Short, garbled, failed and foreign answers: each field is "unknown" with its raw text."""
    canned = answers(refusing=False)
    canned['0x1002'] = {'raw': '> HCI Event: 0x0e plen 68\n  01 02 10 00 FF FF FF\n'}       # cut short
    canned['0x1003'] = {'raw': 'Send failed: Network is down\n', 'exit': 1}
    canned['0x2003'] = {'raw': '> HCI Event: 0x0e plen 12\n  zz top\n'}
    canned['0x201c'] = {'event': 0x0E, 'bytes': '01 03 0c 00'}                               # answers Reset
    canned['0x2002'] = {'status': 0, 'parameters': 'fb'}                                     # too short
    canned['0x1005'] = {'raw': '\x00\xff binary noise \u2603\n'}
    canned['0x2001:0x27f'] = {'raw': ''}
    capture = Capture(tmp_path, canned)
    result = capture.run()
    assert result.returncode == 0, result.stderr
    check_no_traceback(result)
    profile = json.loads(result.stdout)
    unknown = ['lmp_features', 'le_features', 'le_states', 'le_acl_buffers', 'acl_buffers', 'commands_not_listed']
    for key in unknown:
        assert profile[key] == 'unknown', key
        assert key in profile['assumed'] and key in profile['unparsed'], key
    assert 'Send failed: Network is down' in profile['unparsed']['lmp_features']
    assert 'le_event_mask_limit' in profile['assumed']
    assert profile['hci_version'] == 9 and profile['lmp_subversion'] == '0x6606'
    assert profile['completions'] == {'interval_ms': 30, 'max_per_event': 8}
    check_daemon_restored(capture)


def test_capture_controller_garbage_version_fails_clearly(tmp_path):
    canned = answers(refusing=False)
    canned['0x1001'] = {'raw': '> HCI Event: 0x0e plen 12\n  01 01 10 00 09\n'}
    capture = Capture(tmp_path, canned)
    result = capture.run()
    assert result.returncode == 3, result.stderr
    check_no_traceback(result)
    assert result.stdout == ''
    assert 'error: the controller\'s answer to Read Local Version Information (0x04 0x0001) is unreadable' \
        in result.stderr
    assert 'plen 12 but 5 bytes' in result.stderr
    assert 'send back' in result.stderr and capture.tarball().exists()
    check_daemon_restored(capture)


def test_capture_controller_btmon_adapter_down_daemon_stopped(tmp_path):
    """--btmon: blesensord (not running before) is started under btmon, then stopped again; the
    adapter, down before, is put down again."""
    capture = Capture(tmp_path, answers(refusing=False), adapter_state='DOWN', unit_state='inactive')
    result = capture.run('--btmon', '1', '--name', 'bcm4345c5-pi400')
    assert result.returncode == 0, result.stderr
    profile = json.loads(result.stdout)
    assert profile['name'] == 'bcm4345c5-pi400'
    assert capture.calls('hciconfig').count('hciconfig hci0 up') >= 1
    assert capture.calls('hciconfig')[-1] == 'hciconfig hci0 down'
    assert capture.calls('systemctl')[-2:] == ['systemctl --no-block restart blesensord.service',
                                               'systemctl stop blesensord.service']
    assert {'blesensord-bringup.btsnoop', 'btmon.txt', 'blesensord-journal.txt'} <= capture.members()


def test_capture_controller_no_such_adapter(tmp_path):
    capture = Capture(tmp_path, answers(refusing=False))
    result = capture.run('--adapter', 'hci1')
    assert result.returncode == 2
    check_no_traceback(result)
    assert 'error: no adapter hci1' in result.stderr and 'Adapters present: hci0' in result.stderr
    assert capture.calls('hcitool') == []
    check_daemon_restored(capture)


def test_capture_controller_without_hcitool(tmp_path):
    capture = Capture(tmp_path, answers(refusing=False))
    (capture.bin / 'hcitool').unlink()
    tools = tmp_path / 'tools'
    tools.mkdir()
    for tool in ('bash', 'id', 'env'):
        (tools / tool).symlink_to(shutil.which(tool))
    result = subprocess.run([str(SCRIPT)], env={**capture.env, 'PATH': f'{capture.bin}:{tools}'},
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert 'error: hcitool not found; install BlueZ\'s tools: sudo apt install bluez' in result.stderr
    assert capture.calls('systemctl') == []


@pytest.mark.skipif(os.getuid() != 0 or not shutil.which('setpriv'), reason='needs root and setpriv to drop it')
def test_capture_controller_needs_root(tmp_path):
    capture = Capture(tmp_path, answers(refusing=False))
    env = {key: value for key, value in capture.env.items() if key != 'CAPTURE_CONTROLLER_ALLOW_NON_ROOT'}
    result = subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'bash', str(SCRIPT)],
                            env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2, result.stderr
    assert 'error: run it as root: sudo' in result.stderr


def test_capture_controller_usage(tmp_path):
    capture = Capture(tmp_path, answers(refusing=False))
    result = capture.run('--help')
    assert result.returncode == 0 and 'Usage: sudo scripts/capture-controller.sh' in result.stdout
    for bad in (['--adapter', 'bluetooth0'], ['--btmon', 'soon'], ['--frobnicate']):
        result = capture.run(*bad)
        assert result.returncode == 2 and 'error:' in result.stderr, bad
    assert capture.calls('systemctl') == []


def test_capture_controller_interrupted_restores(tmp_path):
    """Ctrl-C while hcitool waits for an answer: blesensord is started again, the adapter power-cycled."""
    canned = answers(refusing=False)
    canned['0x0c63'] = {'hang': 30, 'status': 0}
    capture = Capture(tmp_path, canned)
    # As from a terminal, where SIGINT is not ignored: a test run started in the background (a CI
    # job under nohup, `cmd &`) hands its children SIGINT ignored, and bash cannot trap a signal
    # ignored at its start.
    hanging, hanging_writer = os.pipe()
    process = subprocess.Popen([str(SCRIPT), '--output', str(capture.out)],
                               env={**capture.env, 'STUB_HANG_FD': str(hanging_writer)}, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               pass_fds=(hanging_writer,),
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(hanging_writer)
    try:
        # The stub writes when it starts hanging; end of file means every holder of the pipe (the
        # script and its children) exited first.
        with os.fdopen(hanging, 'rb') as barrier:
            assert barrier.read(1) == b'h', process.communicate()
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, stderr
    assert 'interrupted' in stderr
    check_daemon_restored(capture)
    assert capture.calls('btmgmt')[-1] == 'btmgmt --index 0 power on'


def test_capture_controller_table_matches_the_host():
    """The script's embedded (opcode, octet, bit) table is HCISupportedCommands.positions."""
    assert script_positions() == swift_positions()
    assert len(script_positions()) >= 30


@pytest.mark.skipif(not shutil.which('shellcheck'), reason='shellcheck is not installed')
def test_capture_controller_shellcheck():
    result = subprocess.run(['shellcheck', str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
