"""Reads (short and long, Read Blob) and writes (request, command, prepared
long write, rejections) against the heart-rate-peripheral example, at
several MTUs."""

from __future__ import annotations

import asyncio

import pytest
from bumble import att

from harness.gatt import (
    BODY_SENSOR_LOCATION, CONTROL_POINT, ECHO, LONG, LONG_VALUE, OUR_MTU, connect, start_example,
    uuid_text,
)

READ_BLOB = 0x0C
PREPARE_WRITE = 0x16
EXECUTE_WRITE = 0x18
WRITE_REQUEST = 0x12


@pytest.mark.parametrize('central_mtu', [23, 247, 517])
async def test_short_and_long_reads_at_mtu(harness, central, spawn_example, central_mtu):
    example = await start_example(harness, spawn_example, name='hr-reads')
    session = await connect(central, example)
    server_mtu = await session.exchange_mtu(central_mtu)
    assert server_mtu == OUR_MTU
    negotiated = min(central_mtu, OUR_MTU)
    assert session.client.mtu == negotiated
    await example.wait_for_log(f'mtu {central.address} {negotiated}', timeout=5)
    await session.discover()

    assert await session.read(session.characteristic(BODY_SENSOR_LOCATION)) == b'\x01'
    assert READ_BLOB not in session.tap.sent_opcodes

    value = await session.read(session.characteristic(LONG))
    assert len(value) == len(LONG_VALUE)
    assert value == LONG_VALUE
    # 400 bytes never fit in one Read Response at these MTUs: Read Blob did the rest.
    blobs = session.tap.sent_opcodes.count(READ_BLOB)
    expected_blobs = -(-(len(LONG_VALUE) - (negotiated - 1)) // (negotiated - 1))
    assert blobs >= expected_blobs, f'{blobs} Read Blob requests, expected at least {expected_blobs}'


async def test_writes_with_and_without_response_and_rejections(harness, central, spawn_example):
    example = await start_example(harness, spawn_example, name='hr-writes')
    session = await connect(central, example)
    await session.discover()
    echo = session.characteristic(ECHO)
    address, echo_uuid = central.address, uuid_text(ECHO)

    assert await session.read(echo) == b'hello'

    await session.write(echo, b'with response', with_response=True)
    assert session.tap.sent_opcodes[-1] == WRITE_REQUEST
    assert await session.read(echo) == b'with response'
    await example.wait_for_log(f'write {address} {echo_uuid} {b"with response".hex()}', timeout=5)

    await session.write(echo, b'no response', with_response=False)
    await example.wait_for_log(f'write {address} {echo_uuid} {b"no response".hex()}', timeout=5)
    last: list[bytes] = []

    async def read_back() -> None:
        last.append(await session.read(echo))

    async def wait_value(expected: bytes) -> None:
        # A command has no response: the value may land a moment later.
        for _ in range(50):  # about 1 s at most
            await read_back()
            if last[-1] == expected:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f'Echo still reads {last[-1]!r}, expected {expected!r}')

    await wait_value(b'no response')

    # 513 bytes: one more than an attribute may hold (a prepared write at this MTU).
    code = await session.att_error_of(session.client.write_value(echo, bytes(513), True))
    assert code == att.ATT_INVALID_ATTRIBUTE_LENGTH_ERROR, f'0x{code:02X}'
    assert await session.read(echo) == b'no response', 'a rejected long write changed the value'
    # 512 bytes is the limit and is accepted.
    maximum = bytes((7 * i) & 0xFF for i in range(512))
    await session.write(echo, maximum)
    assert await session.read(echo) == maximum

    control_point = session.characteristic(CONTROL_POINT)
    await session.write(control_point, b'\x01')
    await example.wait_for_log(f'write {address} {uuid_text(CONTROL_POINT)} 01', timeout=5)
    code = await session.att_error_of(session.client.write_value(control_point, b'\x02', True))
    assert code == 0x80, f'0x{code:02X}'
    assert example.count(f'{uuid_text(CONTROL_POINT)} 02') == 0, 'a rejected write was logged as accepted'

    location = session.characteristic(BODY_SENSOR_LOCATION)
    code = await session.att_error_of(session.client.write_value(location, b'\x02', True))
    assert code == att.ATT_WRITE_NOT_PERMITTED_ERROR, f'0x{code:02X}'
    assert await session.read(location) == b'\x01'

    # The connection is still usable and consistent after the errors.
    await session.write(echo, b'done')
    assert await session.read(echo) == b'done'


@pytest.mark.parametrize('central_mtu', [23, 247])
async def test_prepared_long_write(harness, central, spawn_example, central_mtu):
    example = await start_example(harness, spawn_example, name='hr-longwrite')
    session = await connect(central, example)
    if central_mtu != 23:
        await session.exchange_mtu(central_mtu)
    await session.discover()
    echo = session.characteristic(ECHO)
    value = bytes((i * 13 + 5) & 0xFF for i in range(300))
    assert len(value) > session.client.mtu - 3

    since = len(session.tap.sent_opcodes)
    await session.write(echo, value, with_response=True)
    sent = session.tap.sent_opcodes[since:]
    parts = -(-len(value) // (session.client.mtu - 5))
    assert sent == [PREPARE_WRITE] * parts + [EXECUTE_WRITE], [hex(o) for o in sent]

    assert await session.read(echo) == value
    # One accepted write of the whole value, not one per part.
    await example.wait_for_log(f'write {central.address} {uuid_text(ECHO)} {value.hex()}', timeout=5)
    assert example.count(f'write {central.address} {uuid_text(ECHO)} ') == 1, example.log
