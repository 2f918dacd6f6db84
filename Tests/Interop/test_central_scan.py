"""`blesensor scan` against the Bumble peripheral: advertising data and scan response
merged into one record, the JSON fields of the contract, --service filters (also on a
UUID found only in the scan response), and a passive scan that gets no scan response."""

from __future__ import annotations

import asyncio
import socket

from harness.central_cli import CentralCli
from harness.peripheral import (
    ADDRESS, APPEARANCE, COMPANY, CUSTOM_SERVICE, FLAGS, MANUFACTURER_DATA, NAME, TX_POWER,
    Peripheral, scan_data, uuid_text,
)

OTHER_ADDRESS = 'F0:00:00:00:00:02'  # a second advertiser without Heart Rate
DURATION = '2'
BOUND = 15.0


def records_of(run, address: str = ADDRESS) -> list[dict]:
    return [r for r in run.json_lines() if r.get('address', '').upper() == address]


def merged(run) -> dict:
    """The last record of the peripheral: by then it carries the scan response."""
    records = records_of(run)
    assert records, f'{ADDRESS} was not reported\n{run.describe()}'
    return records[-1]


async def other_advertiser(harness) -> Peripheral:
    other = Peripheral(harness.link, address=OTHER_ADDRESS, public_address='00:1B:DC:F0:00:E2',
                       name='other', controller_name='other-controller')
    await other.start(*scan_data('other-peri', services16=(0x1809,)))
    return other


async def test_scan_merges_the_scan_response(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('scan', '--duration', DURATION, '--json', timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    record = merged(run)
    assert record['addressType'] == 'random'
    assert record['connectable'] is True
    assert record['scanResponse'] is True
    # Only in the scan response: the name and the 128-bit UUID.
    assert record['name'] == NAME
    assert record['services'] == ['180D', uuid_text(CUSTOM_SERVICE)]
    assert {k: v.lower() for k, v in record['serviceData'].items()} == {'180F': '64'}
    assert [(m['company'], m['data'].lower()) for m in record['manufacturerData']] == \
        [(COMPANY, MANUFACTURER_DATA.hex())]
    assert record['txPower'] == TX_POWER
    assert record['appearance'] == APPEARANCE
    assert record['flags'] == FLAGS
    assert isinstance(record['rssi'], int)
    # A device is printed when first seen or when its data changed, not for every report.
    assert len(records_of(run)) <= 3, run.describe()


async def test_scan_service_filter(central_cli: CentralCli, harness, peripheral: Peripheral):
    await other_advertiser(harness)
    run = await central_cli.run('scan', '--service', '180D', '--duration', DURATION, '--json', timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    assert merged(run)['name'] == NAME
    assert records_of(run, OTHER_ADDRESS) == [], 'the filter let a device without 180D through'

    # The 128-bit UUID is only in the peripheral's scan response: the filter sees merged data.
    run = await central_cli.run('scan', '--service', uuid_text(CUSTOM_SERVICE).lower(),
                                '--duration', DURATION, '--json', timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    assert merged(run)['name'] == NAME
    assert records_of(run, OTHER_ADDRESS) == []

    # Two filters: either matches.
    run = await central_cli.run('scan', '--service', '180D', '--service', '1809',
                                '--duration', DURATION, '--json', timeout=BOUND)
    assert records_of(run) and records_of(run, OTHER_ADDRESS), run.describe()

    run = await central_cli.run('scan', '--service', '1234', '--duration', DURATION, '--json', timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    assert run.json_lines() == []


async def test_passive_scan_has_no_scan_response(central_cli: CentralCli, harness, peripheral: Peripheral):
    run = await central_cli.run('scan', '--passive', '--duration', DURATION, '--json', timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    record = merged(run)
    assert record['scanResponse'] is False
    assert 'name' not in record
    assert record['services'] == ['180D']
    assert record['txPower'] == TX_POWER
    # The controller was never told to scan actively (LE Set Scan Parameters, scan type 1).
    scan_types = [c.parameters[0] for c in harness.controller.commands if c.opcode == 0x200B]
    assert set(scan_types) <= {0}, scan_types


async def test_scan_text_output(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('scan', '--duration', DURATION, timeout=BOUND)
    assert run.process.returncode == 0, run.describe()
    assert ADDRESS in run.out.upper() and NAME in run.out, run.describe()


async def test_a_controller_that_is_not_there_is_an_error_not_a_hang(central_cli: CentralCli):
    # A port nobody listens on: the TCP transport would retry for ever, the command gives up.
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        central_cli.path, 'scan', '--duration', '1', '--transport', f'tcp:127.0.0.1:{port}', '--controller-timeout', '1',
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _, err = await asyncio.wait_for(process.communicate(), 15)
    assert process.returncode == 1, err
    assert b'no controller answered' in err and f'tcp:127.0.0.1:{port}'.encode() in err, err
