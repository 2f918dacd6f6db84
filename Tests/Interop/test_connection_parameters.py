"""The daemon asks each central for connection parameters that pass Apple's accessory rules (an
L2CAP Connection Parameter Update Request, `connection:` in the configuration), and a central
that connected with a short supervision timeout ends up with the longer one."""

from __future__ import annotations

import asyncio
from pathlib import Path

from bumble import hci
from bumble.device import ConnectionParametersPreferences, Peer

MINIMAL = Path(__file__).parent / 'configs' / 'minimal.yaml'


def config(directory: Path, connection: str) -> Path:
    path = directory / 'connection.yaml'
    path.write_text(MINIMAL.read_text() + connection)
    return path


async def connect_short_timeout(harness, central, daemon):
    """Connects at 7.5 ms with a 420 ms supervision timeout: what loses links beside Wi-Fi."""
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    record = await central.scan_for(None, timeout=5)
    preferences = ConnectionParametersPreferences(connection_interval_min=7.5, connection_interval_max=7.5,
                                                  max_latency=0, supervision_timeout=420)
    connection = await asyncio.wait_for(
        central.device.connect(record.address, connection_parameters_preferences={hci.HCI_LE_1M_PHY: preferences}), 10)
    await daemon.wait_for_log('central connected', timeout=5)
    assert connection.parameters.supervision_timeout == 420
    return connection


async def test_a_central_with_a_short_timeout_is_moved_to_the_requested_parameters(harness, central, spawn_daemon, tmp_path):
    path = config(tmp_path, 'connection: {request-after: 1s}\n')
    daemon = await spawn_daemon(harness.port, 'conn-params', '--config', str(path))
    connection = await connect_short_timeout(harness, central, daemon)
    updated = asyncio.get_running_loop().create_future()
    connection.on('connection_parameters_update', lambda: updated.done() or updated.set_result(None))
    await daemon.wait_for_log('central accepted interval 30 ms–60 ms, latency 4, supervision timeout 5 s', timeout=30)
    await asyncio.wait_for(updated, 10)
    parameters = connection.parameters
    # Apple's rules: interval within 30–60 ms, latency 4, timeout 5 s; max × (latency + 1) × 3 < timeout.
    assert 30 <= parameters.connection_interval <= 60, parameters
    assert parameters.peripheral_latency == 4, parameters
    assert parameters.supervision_timeout == 5000, parameters
    assert 60 * 5 * 3 < parameters.supervision_timeout
    assert harness.controller.violations == []


async def test_requests_can_be_turned_off(harness, central, spawn_daemon, tmp_path):
    path = config(tmp_path, 'connection: {request-parameters: false, request-after: 0s}\n')
    daemon = await spawn_daemon(harness.port, 'conn-params-off', '--config', str(path))
    connection = await connect_short_timeout(harness, central, daemon)
    # Barrier: a GATT discovery after the connection; with no delay configured, a request
    # would have come first.
    await asyncio.wait_for(Peer(connection).discover_services(), 10)
    assert daemon.count('central accepted') == 0 and daemon.count('central refused') == 0
    assert connection.parameters.supervision_timeout == 420
