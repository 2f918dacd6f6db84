"""blesensord's advertising data and scan response, byte for byte, against
the placement rules computed independently in harness.placement."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.placement import place

MINIMAL = Path(__file__).parent / 'configs' / 'minimal.yaml'

NUS = '6E400001-B5A3-F393-E0A9-E50E24DCCA9E'
OTHER = '12345678-1234-5678-1234-56789ABCDEF0'
# What the harness controller answers to LE Read Advertising Physical Channel Tx Power.
TX_POWER = -4

CASES = {
    'short-name': ('Sensor', []),
    'name-to-scan-response': ('Environment-Sensor-12', ['180F', '181A']),
    'sixteen-and-128-bit': ('Multi', ['180F', '181A', '180A', NUS]),
    'overflow-128-bit': ('Ovf', ['180F', '181A', '180A', NUS, OTHER]),
    'shortened-name': ('blesensor-greenhouse-north-wing-7', []),
    'shortened-name-utf8': ('capteur-température-serre-nord-Ω', []),
}


async def advertise_and_scan(harness, central, spawn_daemon, name, uuids):
    extra = [arg for uuid in uuids for arg in ('--service-uuid', uuid)]
    daemon = await spawn_daemon(harness.port, name, *extra)
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    await daemon.wait_for_log('advertising enabled', timeout=5)
    record = await central.scan_for(None, timeout=5)
    return daemon, record


@pytest.mark.parametrize('case', list(CASES))
async def test_advertising_bytes(harness, central, spawn_daemon, case):
    name, uuids = CASES[case]
    expected = place(name, uuids, tx_power=TX_POWER)
    assert expected.did_not_fit == []
    _, record = await advertise_and_scan(harness, central, spawn_daemon, name, uuids)
    assert record.advertising_data.hex() == expected.advertising_data.hex()
    assert record.scan_response.hex() == expected.scan_response.hex()
    assert record.event_types == {0x00, 0x04}  # ADV_IND, then SCAN_RSP


async def test_advertising_parameters_and_random_static_address(harness, central, spawn_daemon):
    _, record = await advertise_and_scan(harness, central, spawn_daemon, 'Sensor', [])
    advertiser = harness.controller.le_legacy_advertiser
    assert advertiser.advertising_type == 0x00  # ADV_IND
    assert advertiser.own_address_type == 0x01  # random
    # Apple's discovery schedule: 20 ms in the first 30 s after the daemon starts.
    assert advertiser.advertising_interval_min == 32
    assert not record.address.is_public
    assert record.address.address_bytes[5] & 0xC0 == 0xC0, 'not a random static address'


async def test_uuids_that_fit_nowhere_are_reported(harness, central, spawn_daemon):
    uuids = [f'{0x1800 + i:04X}' for i in range(30)]
    name = 'blesensor-greenhouse-north-wing-7'
    expected = place(name, uuids, tx_power=TX_POWER)
    assert expected.did_not_fit
    daemon, record = await advertise_and_scan(harness, central, spawn_daemon, name, uuids)
    assert record.advertising_data.hex() == expected.advertising_data.hex()
    assert record.scan_response.hex() == expected.scan_response.hex()
    await daemon.wait_for_log('did not fit', timeout=2)


async def test_the_fast_phase_ends_at_the_slower_interval(harness, central, spawn_daemon, tmp_path):
    config = tmp_path / 'fast.yaml'
    config.write_text(MINIMAL.read_text() + 'advertising: {fast-interval: 20ms, fast-period: 1s, interval: 152.5ms}\n')
    daemon = await spawn_daemon(harness.port, 'adv-fast', '--config', str(config))
    await daemon.wait_for_log('advertising enabled', timeout=5)
    assert harness.controller.le_legacy_advertiser.advertising_interval_min == 32  # 20 ms
    await daemon.wait_for_log('advertising interval now 152.5 ms', timeout=10)
    assert harness.controller.le_legacy_advertiser.advertising_interval_min == 244  # 152.5 ms
    assert harness.controller.advertising_enabled
    assert daemon.count('advertising enabled') == 1
