"""`blesensor doctor` end to end: the built CLI against a running blesensord on the simulated
board (the daemon's state and its sensors come from its status over the control socket, which
the doctor finds in the configuration), and with no daemon (each sensor read once through the
real drivers on the simulated chips)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harness.cli import run_cli
from harness.daemon import spawn

CONFIG = """\
board: simulated
sensors:
  - name: body
    driver: tmp102
    publish: [temperature-measurement]
    simulation: {{celsius: 36.8}}
  - name: room
    driver: bme280
    publish: [es-temperature, humidity, pressure]
    simulation: {{celsius: 21.5, humidity: 45, pressure: 101325}}
paths:
  control-socket: {socket}
  state-directory: {state}
"""


def write_config(tmp_path) -> tuple[str, str]:
    socket = str(tmp_path / 'control.sock')
    config = tmp_path / 'simulated.yaml'
    config.write_text(CONFIG.format(socket=socket, state=tmp_path / 'state'))
    return str(config), socket


async def doctor_json(*args: str) -> tuple[int, dict]:
    code, out, err = await run_cli('doctor', '--json', *args, timeout=30)
    assert code in (0, 1), (code, out, err)
    return code, json.loads(out)


async def sensors_reading(socket: str, names: set[str]) -> None:
    """Returns once the daemon's watch-sensors stream has reported each of `names` as ok."""
    reader, writer = await asyncio.open_unix_connection(socket)
    try:
        writer.write(b'{"version":1,"command":"watch-sensors"}\n')
        await writer.drain()
        acknowledgement = json.loads(await reader.readline())
        assert acknowledgement.get('ok') is True, acknowledgement
        waiting = set(names)
        while waiting:
            line = await reader.readline()
            assert line, f'the daemon closed the watch before {sorted(waiting)} read'
            sensor = json.loads(line)['sensor']
            if sensor['state'] == 'ok':
                waiting.discard(sensor['name'])
    finally:
        writer.close()


def by_subject(report: dict) -> dict[str, dict]:
    return {check['subject']: check for check in report['checks']}


def assert_only_unavoidable_failures(code: int, report: dict) -> None:
    """A test machine has no `blesensor` system user (the package creates it): that may fail, nothing else."""
    failed = [check for check in report['checks'] if check['status'] == 'fail']
    assert all(check['subject'] == 'user blesensor' for check in failed), failed
    assert all(check['fix'] for check in failed), failed
    assert code == (1 if failed else 0), (code, report)
    assert report['ok'] == (not failed), report


async def test_doctor_reports_the_running_daemon_and_its_sensors_from_its_status(blesensord, tmp_path):
    config, socket = write_config(tmp_path)
    daemon = await spawn([blesensord, '--config', config, '--log-level', 'debug'])
    try:
        await daemon.wait_for_log('advertising as', timeout=10)
        # Until each sensor's first poll is in, the daemon reports it as starting: wait for both readings.
        await asyncio.wait_for(sensors_reading(socket, {'body', 'room'}), 10)
        code, report = await doctor_json('--config', config)
        checks = by_subject(report)

        assert checks['config']['status'] == 'ok', checks['config']
        assert checks['config']['detail'] == f'{config} (board simulated, 2 sensors)'
        running = checks['blesensord']
        assert running['status'] in ('ok', 'warn'), running
        assert running['detail'].startswith(f'answering on {socket}: transport virtual, address '), running
        assert all(checks[f'sensor {name}']['status'] == 'ok' for name in ('body', 'room')), report
        assert checks['sensor body']['detail'] == '(tmp102, from the daemon): 36.81 °C', checks['sensor body']
        assert checks['sensor room']['detail'].startswith('(bme280, from the daemon): 21.50 °C  45.0 %RH'), checks['sensor room']
        # No hardware checks on the simulated board.
        assert not [c for c in report['checks'] if c['area'] in ('i2c', 'gpio', '1-wire')], report
        assert_only_unavoidable_failures(code, report)

        code, out, err = await run_cli('doctor', '--config', config, timeout=30)
        assert f'ok    blesensord answering on {socket}' in out or f'warn  blesensord answering on {socket}' in out, out
        assert 'ok    sensor body (tmp102, from the daemon): 36.81 °C' in out, out
    finally:
        await daemon.kill()
    assert daemon.process.returncode is not None


def blesensord_running_elsewhere() -> bool:
    """Whether any process on this machine is called blesensord (/proc/PID/comm, as the doctor reads)."""
    for comm in Path('/proc').glob('[0-9]*/comm'):
        try:
            if comm.read_text().strip() == 'blesensord':
                return True
        except OSError:
            continue  # gone meanwhile
    return False


async def test_doctor_without_a_daemon_reads_each_sensor_once_and_says_how_to_start_it(blesensord, tmp_path):
    config, socket = write_config(tmp_path)
    # The doctor also looks at the process table: a blesensord of someone else's on this machine
    # (the installed service, another test run) makes it "running, but not answering" instead.
    elsewhere = blesensord_running_elsewhere()
    code, report = await doctor_json('--config', config)
    elsewhere = elsewhere or blesensord_running_elsewhere()
    checks = by_subject(report)
    stopped = checks['blesensord']
    assert stopped['status'] == 'fail', stopped
    if stopped['detail'].startswith('running, but not answering') and elsewhere:
        assert stopped['detail'] == f'running, but not answering on {socket}', stopped
        # Sensors are then not read behind the back of a daemon that may own them.
        assert 'sensor body' not in checks and 'sensor room' not in checks, report
        assert code == 1
        return
    assert stopped['detail'] == f'not running (no control socket at {socket})', stopped
    assert stopped['fix'] == 'sudo systemctl enable --now blesensord; its log: journalctl -u blesensord', stopped
    assert checks['sensor body']['detail'] == '(tmp102, read now): 36.81 °C', checks['sensor body']
    assert checks['sensor room']['status'] == 'ok', checks['sensor room']
    assert code == 1


async def test_doctor_lists_a_broken_configurations_problems_with_their_lines(blesensord, tmp_path):
    config = tmp_path / 'broken.yaml'
    config.write_text('board: simulated\nsensors:\n  - name: body\n    driver: tmp102\n    address: 0x4g\n')
    code, out, err = await run_cli('doctor', '--config', str(config), '--socket', str(tmp_path / 'none.sock'), timeout=30)
    assert code == 1, (code, out, err)
    assert f'FAIL  config {config}: 1 problem\n      sensors[0].address (line 5): ' in out, out
    assert f'      fix: correct the lines shown, check again with blesensor config check {config}' in out, out


async def test_doctor_on_a_fake_pi_tree_with_i2c_disabled(blesensord, tmp_path):
    """The hidden --root option (for tests): /etc, /dev, /sys and /run come from a directory."""
    root = tmp_path / 'pi'
    (root / 'etc/blesensor').mkdir(parents=True)
    (root / 'etc/passwd').write_text('root:x:0:0:root:/root:/bin/bash\n'
                                     'blesensor:x:998:996::/var/lib/blesensor:/usr/sbin/nologin\n')
    (root / 'etc/group').write_text('root:x:0:\ni2c:x:998:blesensor\nblesensor:x:996:\n')
    (root / 'etc/blesensor/blesensor.yaml').write_text(
        'board: raspberry-pi-4b\nsensors: [{name: body, driver: tmp102, publish: [temperature-measurement]}]\n')
    (root / 'sys/class/bluetooth/hci0').mkdir(parents=True)
    (root / 'dev').mkdir()
    code, out, err = await run_cli('doctor', '--root', str(root), timeout=30)
    assert code == 1, (code, out, err)
    assert 'ok    config /etc/blesensor/blesensor.yaml (board raspberry-pi-4b, 1 sensor)\n' in out, out
    assert ('FAIL  /dev/i2c-1 missing (needed by body); there is no /dev/i2c-* at all\n'
            '      fix: enable I2C: sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in '
            '/boot/firmware/config.txt) and reboot\n') in out, out
    assert 'ok    group i2c blesensor is a member (for /dev/i2c-1)\n' in out, out
    assert 'FAIL  blesensord not running (no control socket at /run/blesensor/control.sock)\n' in out, out
