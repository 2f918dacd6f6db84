"""Two Bumble centrals connected to the heart-rate-peripheral example at once:
each has its own CCCD state, and Echo is shared."""

from __future__ import annotations

import asyncio

from harness.gatt import CCCD, COUNTER, ECHO, HRM, connect, start_example, uuid_text


async def test_two_centrals_own_subscriptions_shared_echo(harness, central, second_central, spawn_example):
    example = await start_example(harness, spawn_example, '--rate', '20', name='hr-two')
    a = await connect(central, example)
    # The example keeps advertising while connected, so a second central can join.
    b = await connect(second_central, example)
    assert central.address != second_central.address
    await a.discover()
    await b.discover()
    hrm_a, hrm_b = a.characteristic(HRM), b.characteristic(HRM)
    counter_a, counter_b = a.characteristic(COUNTER), b.characteristic(COUNTER)
    assert hrm_a.handle == hrm_b.handle

    # A subscribes to 2A37, B to the Counter indications.
    await asyncio.wait_for(a.peer.subscribe(hrm_a, lambda _v: None), 5)
    await asyncio.wait_for(b.peer.subscribe(counter_b, lambda _v: None, prefer_notify=False), 5)
    await example.wait_for_log(f'subscribed {central.address} {uuid_text(HRM)}', timeout=5)
    await example.wait_for_log(f'subscribed {second_central.address} {uuid_text(COUNTER)}', timeout=5)
    await a.tap.wait_for(lambda: len(a.tap.notifications[hrm_a.handle]) >= 5, 5, '5 notifications on A')
    await b.tap.wait_for(lambda: len(b.tap.indications[counter_b.handle]) >= 2, 3, '2 indications on B')
    assert b.tap.notifications[hrm_b.handle] == [], 'B got 2A37 notifications it never subscribed to'
    assert a.tap.indications[counter_a.handle] == [], 'A got Counter indications it never subscribed to'
    # Each CCCD reads back its own connection's state.
    assert await a.read(hrm_a.get_descriptor(CCCD)) == b'\x01\x00'
    assert await b.read(hrm_b.get_descriptor(CCCD)) == b'\x00\x00'
    assert await a.read(counter_a.get_descriptor(CCCD)) == b'\x00\x00'
    assert await b.read(counter_b.get_descriptor(CCCD)) == b'\x02\x00'

    # Echo written by one central is read by the other, both ways.
    await a.write(a.characteristic(ECHO), b'from A')
    assert await b.read(b.characteristic(ECHO)) == b'from A'
    await b.write(b.characteristic(ECHO), b'from B', with_response=True)
    assert await a.read(a.characteristic(ECHO)) == b'from B'
    await example.wait_for_log(f'write {second_central.address} {uuid_text(ECHO)} {b"from B".hex()}', timeout=5)

    # A leaves: B's subscription and reads carry on.
    await central.disconnect(a.connection)
    await example.wait_for_log(f'central disconnected {central.address}', timeout=5)
    before = len(b.tap.indications[counter_b.handle])
    await b.tap.wait_for(lambda: len(b.tap.indications[counter_b.handle]) >= before + 2, 3,
                         'indications on B after A left')
    assert await b.read(b.characteristic(ECHO)) == b'from B'
    assert b.tap.notifications[hrm_b.handle] == []
