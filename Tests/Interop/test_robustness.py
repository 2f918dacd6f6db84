"""The daemon's TCP transport: late controllers and lost links."""

from __future__ import annotations

import asyncio
import signal

from harness.gatt import HRM, connect, start_example
from harness.server import HarnessServer, free_port


async def test_daemon_started_before_harness_still_connects(spawn_daemon):
    port = free_port()
    daemon = await spawn_daemon(port, 'early-bird')
    await daemon.wait_for_log('retrying in', timeout=60)  # a barrier: the daemon is retrying
    assert daemon.process.returncode is None, f'daemon gave up:\n{daemon.log}'
    server = HarnessServer()
    await server.start(port)
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 10)
        await daemon.wait_for_log('advertising enabled', timeout=5)
    finally:
        await server.close()


async def test_link_lost_exits_nonzero_with_message(harness, spawn_daemon):
    daemon = await spawn_daemon(harness.port, 'link-lost')
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    harness.drop_host()
    code = await daemon.wait_exit(5)
    assert code != 0
    assert daemon.count('controller link lost') >= 1, daemon.log


async def test_example_streaming_when_the_link_drops_exits_nonzero(harness, central, spawn_example):
    # Streaming keeps its queue full, so closing the link wakes its refill handler; that once spun
    # for ever on the dead link, and the example idled after the loss instead of exiting.
    example = await start_example(harness, spawn_example, '--stream', name='stream-lost')
    session = await connect(central, example)
    await session.discover()
    hrm = session.characteristic(HRM)
    await asyncio.wait_for(session.peer.subscribe(hrm, lambda _: None), 5)
    await session.tap.wait_for(lambda: len(session.tap.notifications[hrm.handle]) >= 50, 10, '50 notifications of 2A37')
    harness.drop_host()
    code = await example.wait_exit(10)
    assert code == 1, example.log
    assert example.count('controller link lost') >= 1, example.log


async def test_sigterm_while_waiting_for_the_controller_exits_zero(spawn_daemon):
    # Nothing listens on this port: the daemon is in its connect-retry loop when the signal comes.
    daemon = await spawn_daemon(free_port(), 'never-connected')
    # A barrier, not a sleep: its signal handling is in place before it first tries to connect,
    # and on a busy machine a fixed half second was sometimes still before that.
    await daemon.wait_for_log('retrying in', timeout=60)
    assert daemon.process.returncode is None, daemon.log
    daemon.send_signal(signal.SIGTERM)
    assert await daemon.wait_exit(30) == 0, daemon.log
    assert daemon.count('stopped before the controller was ready') == 1, daemon.log
