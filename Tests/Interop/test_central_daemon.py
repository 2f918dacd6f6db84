"""Our central against our own peripheral: `blesensor` (on a second harness controller on
the same link) reads the battery level of blesensord on the simulated board and takes
three heart rate notifications."""

from __future__ import annotations

import asyncio

import pytest

from harness.central_cli import CentralCli, blesensor_path, require_central_commands
from harness.server import HarnessServer

BOUND = 20.0


@pytest.fixture
async def cli_server(harness):
    server = HarnessServer(link=harness.link, public_address='00:1B:DC:F0:00:C3', name='cli-controller')
    await server.start()
    yield server
    await server.close()
    assert server.controller.violations == [], server.controller.violations


async def test_cli_reads_and_subscribes_to_our_daemon(harness, cli_server, central, spawn_daemon, tmp_path):
    require_central_commands()
    daemon = await spawn_daemon(harness.port, 'blesensor-central-test', '--board', 'simulated')
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    await daemon.wait_for_log('advertising enabled', timeout=5)
    # The daemon's address, as a Bumble central sees it.
    record = await central.scan_for(None, timeout=5)
    address = record.address.to_string(with_type_qualifier=False)

    cli = CentralCli(blesensor_path(), cli_server, tmp_path / 'cli-state')
    try:
        run = await cli.run('read', address, '2A19', '--json', timeout=BOUND)
        assert run.process.returncode == 0, run.describe()
        [value] = run.json_lines()
        assert value['uuid'] == '2A19' and len(bytes.fromhex(value['value'])) == 1, value
        assert 0 <= bytes.fromhex(value['value'])[0] <= 100
        assert '%' in value['decoded'], value

        run = await cli.start('subscribe', address, '2A37', '--count', '3', '--json')
        await run.wait_line(lambda l: l.get('event') == 'subscribed', 'the subscribed line', timeout=BOUND)
        assert await run.wait_exit(BOUND) == 0, run.describe()
        values = [line for line in run.json_lines() if 'value' in line]
        assert len(values) == 3, run.describe()
        assert all(v['uuid'] == '2A37' and v['kind'] == 'notification' and 'bpm' in v['decoded']
                   for v in values), values
    finally:
        await cli.close()
        for run in cli.runs:
            print(f'--- {run.describe()}')


async def test_a_central_command_on_the_daemons_controller_says_the_daemon_owns_it(harness, spawn_daemon, tmp_path):
    require_central_commands()
    daemon = await spawn_daemon(harness.port, 'blesensor-owner-test')
    await daemon.wait_for_log('advertising enabled', timeout=10)
    process = await asyncio.create_subprocess_exec(
        blesensor_path(), 'read', 'F0:F1:F2:F3:F4:F5', '2A19', '--transport', f'tcp:127.0.0.1:{harness.port}',
        '--socket', daemon.control_socket, '--state-dir', str(tmp_path / 'cli-state'),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), BOUND)
    text = err.decode()
    assert process.returncode == 1, text
    assert 'in use by blesensord' in text and '--transport' in text and 'stop the daemon' in text, text
    # The daemon kept its controller: nothing of the CLI reached it, and it still advertises.
    assert daemon.process.returncode is None
    assert harness.controller.advertising_enabled
    assert daemon.count('controller ready:') == 1, daemon.log
