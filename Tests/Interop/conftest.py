"""Fixtures: the harness (controller behind H4/TCP), the central, and the
daemon under test as a subprocess that is always killed in teardown."""

from __future__ import annotations

import asyncio
import os
import sys

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
async def harness():
    server = HarnessServer()
    await server.start()
    yield server
    await server.close()


@pytest.fixture
async def central(harness):
    c = Central(harness.link)
    await c.power_on()
    return c


@pytest.fixture
async def spawn_daemon(blesensord, request):
    """Factory: spawn_daemon(port, name, *extra) -> Daemon. All are killed at
    teardown; their logs are printed when the test failed."""
    daemons: list[Daemon] = []

    async def spawn(port: int, name: str = 'blesensor-test', *extra: str) -> Daemon:
        argv = [blesensord, '--transport', f'tcp:127.0.0.1:{port}', '--name', name,
                '--log-level', 'debug', *extra]
        daemon = await spawn_process(argv)
        daemons.append(daemon)
        return daemon

    yield spawn
    for daemon in daemons:
        await daemon.kill()
        print(f'--- daemon {" ".join(daemon.argv)} (exit {daemon.process.returncode})')
        print(daemon.log)
