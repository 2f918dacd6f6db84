"""Connections from the central to blesensord, and clean shutdown."""

from __future__ import annotations

import asyncio
import signal


async def start(harness, central, spawn_daemon, *extra):
    daemon = await spawn_daemon(harness.port, 'conn-test', *extra)
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    record = await central.scan_for(None, timeout=5)
    return daemon, record


async def test_connect_disconnect_resumes_advertising(harness, central, spawn_daemon):
    daemon, record = await start(harness, central, spawn_daemon)
    connection = await central.connect(record.address)
    await daemon.wait_for_log('central connected', timeout=5)
    since = len(harness.controller.commands)
    await central.disconnect(connection)
    await daemon.wait_for_log('central disconnected', timeout=5)
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True, since), 5)
    again = await central.scan_for(None, timeout=5)
    assert again.address == record.address
    assert harness.controller.violations == []


async def test_max_one_connection_keeps_advertising_off(harness, central, spawn_daemon):
    daemon, record = await start(harness, central, spawn_daemon, '--max-connections', '1')
    connection = await central.connect(record.address)
    await daemon.wait_for_log('central connected', timeout=5)
    assert await central.sees_no_advertising(central.key(record.address))
    assert not harness.controller.advertising_enabled
    await central.disconnect(connection)
    await daemon.wait_for_log('central disconnected', timeout=5)
    await central.scan_for(central.key(record.address), timeout=5)


async def test_sigterm_exits_zero_and_stops_advertising(harness, central, spawn_daemon):
    daemon, _ = await start(harness, central, spawn_daemon)
    since = len(harness.controller.commands)
    daemon.send_signal(signal.SIGTERM)
    assert await daemon.wait_exit(5) == 0
    disabled = harness.controller.wait_for_advertising_enable(False, since)
    gone = asyncio.ensure_future(harness.wait_host_gone(2))
    done, pending = await asyncio.wait([disabled, gone], timeout=2, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    assert done, 'after SIGTERM the daemon neither disabled advertising nor closed the socket'


OPCODE_DISCONNECT = 0x0406


async def test_sigterm_with_a_central_connected_disables_advertising_and_disconnects(harness, central, spawn_daemon):
    daemon, record = await start(harness, central, spawn_daemon, '--max-connections', '2')
    # Counted before connecting: the re-enable may come before or after the connection's other
    # commands (Read Remote Version, Data Length), so it is not always the last one.
    before_connect = len(harness.controller.commands)
    connection = await central.connect(record.address)
    await daemon.wait_for_log('central connected', timeout=5)
    # A slot is left, so advertising came back; SIGTERM must turn it off and drop the link.
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True, before_connect), 5)
    since = len(harness.controller.commands)
    disconnected = asyncio.get_running_loop().create_future()
    connection.on('disconnection', lambda reason: disconnected.done() or disconnected.set_result(reason))
    daemon.send_signal(signal.SIGTERM)
    assert await daemon.wait_exit(5) == 0
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(False, since), 2)
    disconnect = await asyncio.wait_for(
        harness.controller.wait_for_command(lambda r: r.opcode == OPCODE_DISCONNECT, since), 2)
    handle, reason = disconnect.parameters[0] | (disconnect.parameters[1] << 8), disconnect.parameters[2]
    assert handle == connection.handle
    assert reason == 0x15  # Remote Device Terminated Connection due to Power Off
    assert await asyncio.wait_for(disconnected, 5) == 0x15
