"""Notifications (2A37) and indications (Counter) from the heart-rate-peripheral
example: values received are exactly the values it sent, and unsubscribing
stops them."""

from __future__ import annotations

import asyncio
import struct

from harness.gatt import CCCD, COUNTER, HRM, connect, is_subsequence, logged_values, start_example, uuid_text

RATE = '20'  # 2A37 updates per second: 5 values in a quarter of a second


async def run_the_other_timer(session, uuid, values: int, indicate: bool) -> None:
    """A barrier instead of a sleep: subscribe to the example's other periodic characteristic and
    receive `values` of it, so the example's clock has run for `values - 1` of its periods (each
    longer than several periods of the one under test) while we watched; the caller then makes an
    ATT round trip, which arrives after anything sent before it on the same bearer."""
    characteristic = session.characteristic(uuid)
    received = session.tap.indications if indicate else session.tap.notifications
    before = len(received[characteristic.handle])
    await asyncio.wait_for(session.peer.subscribe(characteristic, lambda _v: None, prefer_notify=not indicate), 5)
    await session.tap.wait_for(lambda: len(received[characteristic.handle]) >= before + values, 10,
                               f'{values} values of {uuid}')


def check_heart_rate_pattern(values: list[bytes]) -> None:
    """[flags 0x00, bpm]; bpm steps 60, 61, ..., 99, 60, ... one per update."""
    for value in values:
        assert len(value) == 2 and value[0] == 0x00 and 60 <= value[1] <= 99, value.hex()
    for before, after in zip(values, values[1:]):
        assert after[1] == (60 if before[1] == 99 else before[1] + 1), (before.hex(), after.hex())


async def test_heart_rate_notifications_are_the_values_sent(harness, central, spawn_example):
    example = await start_example(harness, spawn_example, '--rate', RATE, name='hr-notify')
    session = await connect(central, example)
    await session.discover()
    hrm = session.characteristic(HRM)
    received: list[bytes] = []

    await asyncio.wait_for(session.peer.subscribe(hrm, received.append), 5)
    await example.wait_for_log(f'subscribed {central.address} {uuid_text(HRM)}', timeout=5)
    await session.tap.wait_for(lambda: len(session.tap.notifications[hrm.handle]) >= 5, 5,
                               '5 notifications of 2A37')
    assert received, 'the subscriber callback got nothing'
    values = list(session.tap.notifications[hrm.handle])

    prefix = f'notify {uuid_text(HRM)} '
    # Its log may trail the air: wait for the line of the last value received.
    await example.wait_for_log(prefix + values[-1].hex(), timeout=5)
    sent = logged_values(example, prefix)
    check_heart_rate_pattern(sent)
    for value in values:
        assert value in sent, f'received {value.hex()} that was never sent; sent {[v.hex() for v in sent]}'
    # In order; values may be coalesced (skipped) but never reordered or invented.
    assert is_subsequence(values, sent), ([v.hex() for v in values], [v.hex() for v in sent])
    # The CCCD of this connection reads back notifications enabled.
    cccd = hrm.get_descriptor(CCCD)
    assert cccd is not None
    assert await session.read(cccd) == b'\x01\x00'

    await asyncio.wait_for(session.peer.unsubscribe(hrm), 5)
    await example.wait_for_log(f'unsubscribed {central.address} {uuid_text(HRM)}', timeout=5)
    count = len(session.tap.notifications[hrm.handle])
    # Three Counter indications, 200 ms apart: eight 2A37 periods at least.
    await run_the_other_timer(session, COUNTER, 3, indicate=True)
    assert await session.read(cccd) == b'\x00\x00'
    assert len(session.tap.notifications[hrm.handle]) == count, 'notifications after unsubscribing'


async def test_counter_indications_are_consecutive_and_stop(harness, central, spawn_example):
    example = await start_example(harness, spawn_example, name='hr-indicate')
    session = await connect(central, example)
    await session.discover()
    counter = session.characteristic(COUNTER)
    handle = counter.handle

    await asyncio.wait_for(session.peer.subscribe(counter, lambda _v: None, prefer_notify=False), 5)
    await example.wait_for_log(f'subscribed {central.address} {uuid_text(COUNTER)}', timeout=5)
    # One per 200 ms: four take about 0.8 s.
    await session.tap.wait_for(lambda: len(session.tap.indications[handle]) >= 4, 3,
                               '4 Counter indications')
    values = list(session.tap.indications[handle])
    assert not session.tap.notifications[handle], 'Counter was notified, not indicated'
    numbers = []
    for value in values:
        assert len(value) == 4, value.hex()
        numbers.append(struct.unpack('<I', value)[0])
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), numbers

    prefix = f'indicate {uuid_text(COUNTER)} '
    await example.wait_for_log(prefix + values[-1].hex(), timeout=5)
    sent = logged_values(example, prefix)
    assert is_subsequence(values, sent), ([v.hex() for v in values], [v.hex() for v in sent])
    # Indications are never dropped: every logged one up to the last received arrived.
    upto = sent.index(values[-1]) + 1
    first = sent.index(values[0])
    assert sent[first:upto] == values

    # A read returns the current counter: at least the last indicated value.
    current = struct.unpack('<I', await session.read(counter))[0]
    assert current >= numbers[-1]

    await asyncio.wait_for(session.peer.unsubscribe(counter), 5)
    await example.wait_for_log(f'unsubscribed {central.address} {uuid_text(COUNTER)}', timeout=5)
    count = len(session.tap.indications[handle])
    # Nobody subscribed: the counter stands still. Two 2A37 notifications at 1 Hz (the example's
    # default rate): five Counter periods at least between the reads.
    still = struct.unpack('<I', await session.read(counter))[0]
    await run_the_other_timer(session, HRM, 2, indicate=False)
    assert struct.unpack('<I', await session.read(counter))[0] == still
    assert len(session.tap.indications[handle]) == count, 'indications after unsubscribing'


async def test_a_notification_flood_while_credits_are_held_respects_flow_control_and_loses_nothing(
        harness, central, spawn_example):
    """`--stream` sends 2A37 as fast as updateValue accepts (every value queued, none coalesced)
    while the controller holds back every Number Of Completed Packets: the host must stop at the
    controller's credits, and once they return the stream resumes with no value lost or reordered."""
    example = await start_example(harness, spawn_example, '--stream', name='hr-flood')
    session = await connect(central, example)
    await session.discover()
    hrm = session.characteristic(HRM)
    controller = harness.controller
    controller.hold_completions = True
    await asyncio.wait_for(session.peer.subscribe(hrm, lambda _v: None), 5)

    # The example allows 4 centrals: a lone link leaves one credit for each of the other three.
    credits = max(1, controller.total_num_le_acl_data_packets - 3)

    def credits_in_use() -> int:
        return sum(controller._outstanding.values())

    # The subscription's response and the stream used the link's credits up; then it has to wait.
    await session.tap.wait_for(lambda: credits_in_use() >= credits, 10, "the host to use the link's credits")
    assert credits_in_use() == credits
    assert controller.violations == []
    received_while_held = len(session.tap.notifications[hrm.handle])
    assert received_while_held < credits

    controller.hold_completions = False
    controller.release_completions()
    await session.tap.wait_for(lambda: len(session.tap.notifications[hrm.handle]) >= received_while_held + 500, 20,
                               '500 more notifications after the credits came back')
    values = list(session.tap.notifications[hrm.handle])
    # Stream values: flags 0x10, bpm 60..99 cycling, nine RR-intervals; consecutive, none dropped.
    assert all(len(v) == 20 and v[0] == 0x10 for v in values)
    bpms = [v[1] for v in values]
    for before, after in zip(bpms, bpms[1:]):
        assert after == (60 if before == 99 else before + 1), (before, after)
    assert controller.violations == []
