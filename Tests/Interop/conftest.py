"""Fixtures: the harness (controller behind H4/TCP), the central, and the
daemon under test as a subprocess that is always killed in teardown."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.central import Central  # noqa: E402
from harness.daemon import Daemon, spawn as spawn_process  # noqa: E402
from harness.server import HarnessServer  # noqa: E402


@pytest.fixture
def blesensord() -> str:
    path = os.environ.get('BLESENSORD')
    if not path:
        pytest.skip('BLESENSORD is not set (path of the blesensord binary)')
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        pytest.fail(f'BLESENSORD={path} is not an executable file; build it with '
                    '`swift build --product blesensord`', pytrace=False)
    return path


@pytest.fixture
def heart_rate_peripheral() -> str:
    path = os.environ.get('HEART_RATE_PERIPHERAL')
    if not path:
        pytest.skip('HEART_RATE_PERIPHERAL is not set (path of the heart-rate-peripheral example '
                    'binary, or tools/fake_heart_rate_peripheral.py)')
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        pytest.fail(f'HEART_RATE_PERIPHERAL={path} is not an executable file; build it with '
                    '`swift build --product heart-rate-peripheral`', pytrace=False)
    return path


@pytest.fixture
async def harness():
    server = HarnessServer()
    await server.start()
    yield server
    await server.close()
    # Every test, whatever it checked, also checked the host never broke flow control or framing.
    assert server.controller.violations == [], f'host misbehaved towards the controller: {server.controller.violations}'


@pytest.fixture
async def central(harness):
    c = Central(harness.link)
    await c.power_on()
    return c


@pytest.fixture
async def second_central(harness, central):
    """Another central on the same link, with its own controller and addresses."""
    c = Central(
        harness.link, address='C0:00:00:00:00:C2', public_address='00:1B:DC:F0:00:C2',
        name='second-central-controller',
    )
    await c.power_on()
    return c


MINIMAL_CONFIG = Path(__file__).parent / 'configs' / 'minimal.yaml'


@pytest.fixture
async def spawn_daemon(blesensord, request, tmp_path):
    """Factory: spawn_daemon(port, name, *extra) -> Daemon. All are killed at
    teardown; their logs are printed when the test failed. Without --config or
    --board in `extra` the daemon runs configs/minimal.yaml (no sensor service);
    each gets its own control socket (daemon.control_socket) unless `extra` names one."""
    daemons: list[Daemon] = []

    async def spawn(port: int, name: str = 'blesensor-test', *extra: str) -> Daemon:
        argv = [blesensord, '--transport', f'tcp:127.0.0.1:{port}', '--name', name,
                '--log-level', 'debug']
        if '--config' not in extra and '--board' not in extra:
            argv += ['--config', str(MINIMAL_CONFIG)]
        # Never the system's /var/lib/blesensor: bonds and the address stay with the test.
        if '--state-dir' not in extra:
            argv += ['--state-dir', str(tmp_path / f'state-{len(daemons)}')]
        socket = None
        if '--control-socket' not in extra:
            socket = str(tmp_path / f'control-{len(daemons)}.sock')
            argv += ['--control-socket', socket]
        argv += list(extra)
        daemon = await spawn_process(argv)
        daemon.control_socket = socket
        daemons.append(daemon)
        return daemon

    yield spawn
    for daemon in daemons:
        await daemon.kill()
        print(f'--- daemon {" ".join(daemon.argv)} (exit {daemon.process.returncode})')
        print(daemon.log)


@pytest.fixture
async def spawn_example(heart_rate_peripheral, request):
    """Factory: spawn_example(port, name, *extra) -> Daemon running the
    heart-rate-peripheral example. All are killed at teardown; their logs are
    printed (shown when the test failed)."""
    examples: list[Daemon] = []

    async def spawn(port: int, name: str = 'hr-test', *extra: str) -> Daemon:
        argv = [heart_rate_peripheral, '--transport', f'tcp:127.0.0.1:{port}', '--name', name,
                '--log-level', 'debug', *extra]
        example = await spawn_process(argv)
        examples.append(example)
        return example

    yield spawn
    for example in examples:
        await example.kill()
        print(f'--- example {" ".join(example.argv)} (exit {example.process.returncode})')
        print(example.log)


@pytest.fixture
async def peripheral(harness):
    """A Bumble peripheral (harness/peripheral.py) advertising on the link as F0:F1:F2:F3:F4:F5,
    for the host under test to reach through the harness controller."""
    from harness.peripheral import Peripheral
    p = Peripheral(harness.link)
    await p.start()
    yield p
    # Our host must never break flow control towards the peripheral's controller either.
    assert p.controller.violations == [], f'violations at the peripheral controller: {p.controller.violations}'


@pytest.fixture
async def central_cli(harness, tmp_path, request):
    """`blesensor`'s central commands on the harness controller (the one the peripheral
    fixture's device is reached through), bonds in a state directory of the test's own.
    Fails when `blesensor scan --help` does not work."""
    from harness.central_cli import CentralCli, blesensor_path, require_central_commands
    require_central_commands()
    cli = CentralCli(blesensor_path(), harness, tmp_path / 'cli-state')
    yield cli
    await cli.close()
    for run in cli.runs:
        print(f'--- {run.describe()}')
