"""`blesensor explore`, `read`, `write` and `subscribe` against the Bumble peripheral:
the discovered tree (included service, descriptors, decoded values, handles as Bumble
assigned them), short and long reads and writes (Bumble stored exactly the bytes),
write without response paced by credits that really run out, notifications,
indications (confirmed) and Service Changed during a subscription."""

from __future__ import annotations

import asyncio
import signal

from bumble import att

from harness.central_cli import CentralCli
from harness.credits import CreditPacer
from harness.peripheral import (
    ADDRESS, CUSTOM_SERVICE, ENCRYPTED, INDICATE_ONLY, LONG_READ, LONG_READ_VALUE, LONG_WRITE,
    USER_DESCRIPTION_VALUE, WRITE_NO_RESPONSE, Peripheral, uuid_text,
)

BOUND = 20.0


def ok(run) -> None:
    assert run.process.returncode == 0, run.describe()


def single_json(run) -> dict:
    [line] = run.json_lines()
    return line


async def test_explore_json_tree(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('explore', ADDRESS, '--json', timeout=BOUND)
    ok(run)
    tree = single_json(run)
    assert tree['address'].upper() == ADDRESS
    assert isinstance(tree['mtu'], int) and tree['mtu'] >= 23
    services = {s['uuid']: s for s in tree['services']}
    assert {'1800', '1801', '180F', '180D', uuid_text(CUSTOM_SERVICE)} <= set(services), list(services)
    assert services['180D']['includes'] == ['180F']
    assert services['180D']['start'] == peripheral.heart_rate_service.handle
    assert services['180D']['end'] == peripheral.heart_rate_service.end_group_handle
    assert all(s['primary'] for s in tree['services'])

    def characteristic(service: str, uuid: str) -> dict:
        [c] = [c for c in services[service]['characteristics'] if c['uuid'] == uuid]
        return c

    battery = characteristic('180F', '2A19')
    assert battery['valueHandle'] == peripheral.battery.handle
    assert battery['handle'] == peripheral.battery.handle - 1  # the declaration
    assert set(battery['properties']) == {'read', 'notify'}
    assert battery['value'].lower() == '64'
    assert '100' in battery['decoded'], battery
    assert [d['uuid'] for d in battery['descriptors']] == ['2902']

    hrm = characteristic('180D', '2A37')
    assert hrm['properties'] == ['notify']
    assert hrm['value'] is None  # not readable: not read

    custom = uuid_text(CUSTOM_SERVICE)
    long_read = characteristic(custom, uuid_text(LONG_READ))
    assert long_read['value'].lower() == LONG_READ_VALUE.hex(), 'explore read the long value in part'
    [description] = long_read['descriptors']
    assert description['uuid'] == '2901'
    assert description['handle'] == peripheral.long_read.handle + 1
    assert bytes.fromhex(description['value']) == USER_DESCRIPTION_VALUE

    encrypted = characteristic(custom, uuid_text(ENCRYPTED))
    assert encrypted['value'] is None
    assert 'Insufficient Authentication' in encrypted['error'] and '0x05' in encrypted['error'], encrypted

    indicate = characteristic(custom, uuid_text(INDICATE_ONLY))
    assert indicate['properties'] == ['indicate']


async def test_explore_text(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('explore', ADDRESS, timeout=BOUND)
    ok(run)
    for text in ('180F', '2A19', '180D', '2A37', '2901', uuid_text(CUSTOM_SERVICE)):
        assert text in run.out.upper(), (text, run.describe())


async def test_read_short_and_long(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('read', ADDRESS, '2A19', '--json', timeout=BOUND)
    ok(run)
    value = single_json(run)
    assert value['uuid'] == '2A19'
    assert value['handle'] == peripheral.battery.handle
    assert value['value'].lower() == '64'
    assert '100' in value['decoded']

    run = await central_cli.run('read', ADDRESS, '2a19', timeout=BOUND)
    ok(run)
    assert '2A19' in run.out.upper() and '100' in run.out, run.describe()

    before = len(peripheral.requests_with_opcode(att.Opcode.ATT_READ_BLOB_REQUEST))
    run = await central_cli.run('read', ADDRESS, uuid_text(LONG_READ), '--json', timeout=BOUND)
    ok(run)
    value = single_json(run)
    assert bytes.fromhex(value['value']) == LONG_READ_VALUE  # all 300 bytes, nothing more
    assert 'decoded' not in value
    assert len(peripheral.requests_with_opcode(att.Opcode.ATT_READ_BLOB_REQUEST)) > before


async def test_write_short_and_long(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('write', ADDRESS, uuid_text(LONG_WRITE), 'DEADBEEF', '--json', timeout=BOUND)
    ok(run)
    assert peripheral.long_write_value == bytes.fromhex('deadbeef')
    result = single_json(run)
    assert (result['uuid'], result['bytes'], result['writes']) == (uuid_text(LONG_WRITE), 4, 1)

    # The forms an engineer types: one 0x per byte, separators; and what is not hex is refused.
    run = await central_cli.run('write', ADDRESS, uuid_text(LONG_WRITE), '0x01 0x02:0A', timeout=BOUND)
    ok(run)
    assert peripheral.long_write_value == bytes([1, 2, 10])
    run = await central_cli.run('write', ADDRESS, uuid_text(LONG_WRITE), '0x+1', timeout=BOUND)
    assert run.process.returncode == 64, run.describe()

    # An MTU of 64 at most: 200 bytes need Prepare Write / Execute Write.
    peripheral.limit_mtu(64)
    value = bytes((i * 13 + 1) & 0xFF for i in range(200))
    run = await central_cli.run('write', ADDRESS, uuid_text(LONG_WRITE), value.hex(), timeout=BOUND)
    ok(run)
    assert peripheral.long_write_value == value
    assert peripheral.requests_with_opcode(att.Opcode.ATT_PREPARE_WRITE_REQUEST)
    [execute] = peripheral.requests_with_opcode(att.Opcode.ATT_EXECUTE_WRITE_REQUEST)
    assert execute == bytes([0x18, 0x01])
    assert 'wrote 200 bytes to' in run.out and uuid_text(LONG_WRITE) in run.out.upper(), run.describe()

    # And reads back what Bumble stored.
    run = await central_cli.run('read', ADDRESS, uuid_text(LONG_WRITE), '--json', timeout=BOUND)
    ok(run)
    assert bytes.fromhex(single_json(run)['value']) == value


async def test_write_without_response_paced_by_credits(central_cli: CentralCli, harness, peripheral: Peripheral):
    # Four LE ACL buffers, completions withheld until all four are in use.
    pacer = CreditPacer(harness.controller, buffers=4)
    run = await central_cli.start('write', ADDRESS, uuid_text(WRITE_NO_RESPONSE), '0102',
                                  '--without-response', '--repeat', '200', '--json')
    try:
        await peripheral.wait_for(lambda: len(peripheral.wwr_values) >= 200 or run.process.returncode is not None,
                                  '200 Write Commands', timeout=BOUND)
    finally:
        pacer.finish()
    assert await run.wait_exit(10) == 0, run.describe()
    assert peripheral.wwr_values == [b'\x01\x02'] * 200
    assert len(peripheral.requests_with_opcode(att.Opcode.ATT_WRITE_COMMAND)) == 200
    assert peripheral.requests_with_opcode(att.Opcode.ATT_WRITE_REQUEST) == []
    # 200 single-packet commands through 4 credits: the host waited for credits many times.
    assert pacer.exhausted >= 40, pacer.exhausted
    result = single_json(run)
    assert (result['bytes'], result['writes']) == (2, 200)


async def subscribed(run, uuid: str, kind: str) -> None:
    line = await run.wait_line(lambda l: l.get('event') == 'subscribed', 'the subscribed line')
    assert line == {'event': 'subscribed', 'uuid': uuid, 'kind': kind}, line


def values(run) -> list[dict]:
    return [line for line in run.json_lines() if 'value' in line]


async def test_subscribe_notifications(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.start('subscribe', ADDRESS, '2A37', '--count', '3', '--json')
    await subscribed(run, '2A37', 'notifications')
    assert peripheral.subscribed(peripheral.hrm)
    sent = [bytes([0x06, bpm]) for bpm in (72, 73, 74)]
    for value in sent:
        await peripheral.notify(peripheral.hrm, value)
    assert await run.wait_exit(BOUND) == 0, run.describe()
    got = values(run)
    assert [(v['uuid'], v['kind'], bytes.fromhex(v['value'])) for v in got] == \
        [('2A37', 'notification', value) for value in sent]
    assert '72' in got[0]['decoded'] and 'bpm' in got[0]['decoded'], got[0]


async def test_ctrl_c_ends_a_subscription_cleanly(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.start('subscribe', ADDRESS, '2A37', '--json')
    await subscribed(run, '2A37', 'notifications')
    run.process.send_signal(signal.SIGINT)
    # Ctrl-C is how a subscription is meant to end: exit 0, and the link is left, not dropped.
    assert await run.wait_exit(BOUND) == 0, run.describe()
    await peripheral.wait_for(lambda: peripheral.disconnections, 'the disconnection', timeout=BOUND)
    assert peripheral.disconnections[-1][1] == 0x13, peripheral.disconnections  # Remote User Terminated


async def test_subscribe_indications(central_cli: CentralCli, peripheral: Peripheral):
    # Indicate-only: indications without --indicate.
    uuid = uuid_text(INDICATE_ONLY)
    run = await central_cli.start('subscribe', ADDRESS, uuid, '--count', '2', '--json')
    await subscribed(run, uuid, 'indications')
    # Each call returns only once the CLI confirmed (a bounded wait).
    await peripheral.indicate(peripheral.indicate_only, b'\x01')
    await peripheral.indicate(peripheral.indicate_only, b'\x02')
    assert await run.wait_exit(BOUND) == 0, run.describe()
    assert [(v['kind'], v['value']) for v in values(run)] == [('indication', '01'), ('indication', '02')]


async def test_subscribe_text_until_count(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.start('subscribe', ADDRESS, '2A19', '--count', '1')
    await run.wait_text('subscribed to', 'the subscribed line')
    await peripheral.notify(peripheral.battery, b'\x50')
    assert await run.wait_exit(BOUND) == 0, run.describe()
    assert '80' in run.out, run.describe()


async def test_service_changed_during_subscription(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.start('subscribe', ADDRESS, '2A37', '--count', '2', '--json')
    await subscribed(run, '2A37', 'notifications')
    await peripheral.notify(peripheral.hrm, b'\x06\x48')
    await run.wait_line(lambda l: l.get('value') == '0648', 'the first value')

    service = await peripheral.add_runtime_service()
    discoveries = len(peripheral.requests_with_opcode(att.Opcode.ATT_READ_BY_GROUP_TYPE_REQUEST))
    await peripheral.indicate_service_changed(peripheral.connection, service.handle, service.end_group_handle)
    line = await run.wait_line(lambda l: l.get('event') == 'servicesChanged', 'the servicesChanged line')
    assert line == {'event': 'servicesChanged', 'start': service.handle, 'end': service.end_group_handle}
    # The client rediscovers...
    await peripheral.wait_for(
        lambda: len(peripheral.requests_with_opcode(att.Opcode.ATT_READ_BY_GROUP_TYPE_REQUEST)) > discoveries,
        'a rediscovery after Service Changed')
    # ...and keeps the subscription (2A37 still exists, at the same handle). A value sent
    # while it is still rediscovering may be dropped, so send until one arrives.
    for _ in range(10):
        await peripheral.notify(peripheral.hrm, b'\x06\x49')
        try:
            await asyncio.wait_for(run.process.wait(), 1.0)
            break
        except asyncio.TimeoutError:
            continue
    assert await run.wait_exit(BOUND) == 0, run.describe()
    assert [v['value'] for v in values(run)] == ['0648', '0649']
