"""Malformed and unsupported ATT PDUs sent raw to the heart-rate-peripheral
example: the right Error Response, and the connection stays usable."""

from __future__ import annotations

import struct

from bumble import att

from harness.gatt import BODY_SENSOR_LOCATION, ECHO, HRM, connect, start_example


def error_fields(response: att.ATT_PDU) -> tuple[int, int, int]:
    assert response.op_code == att.Opcode.ATT_ERROR_RESPONSE, str(response)
    return response.request_opcode_in_error, response.attribute_handle_in_error, response.error_code


async def test_unknown_and_truncated_requests_get_errors_and_the_link_survives(harness, central, spawn_example):
    example = await start_example(harness, spawn_example, name='hr-robust')
    session = await connect(central, example)
    await session.discover()
    location = session.characteristic(BODY_SENSOR_LOCATION)

    # 0x3F: a request opcode (command flag clear) that ATT does not define.
    opcode, handle, code = error_fields(await session.raw_request(bytes([0x3F])))
    assert (opcode, handle, code) == (0x3F, 0x0000, att.ATT_REQUEST_NOT_SUPPORTED_ERROR), (opcode, handle, code)
    # Also with a payload.
    opcode, _, code = error_fields(await session.raw_request(bytes([0x3F, 0x01, 0x02, 0x03])))
    assert (opcode, code) == (0x3F, att.ATT_REQUEST_NOT_SUPPORTED_ERROR)

    # A Read Request with one byte of its two-byte handle.
    opcode, _, code = error_fields(await session.raw_request(bytes([0x0A, location.handle & 0xFF])))
    assert (opcode, code) == (0x0A, att.ATT_INVALID_PDU_ERROR), (opcode, code)
    # A Read Blob Request without its offset.
    opcode, _, code = error_fields(await session.raw_request(struct.pack('<BH', 0x0C, location.handle)))
    assert (opcode, code) == (0x0C, att.ATT_INVALID_PDU_ERROR), (opcode, code)

    # An unknown command (command flag set) is ignored without an answer;
    # the next request gets its own response, not a stale one.
    session.client.send_gatt_pdu(bytes([0x7F, 0x00]))
    assert await session.read(location) == b'\x01'

    # Reading a characteristic that only notifies is not permitted.
    code = await session.att_error_of(session.client.read_value(session.characteristic(HRM)))
    assert code == att.ATT_READ_NOT_PERMITTED_ERROR, f'0x{code:02X}'
    # A handle beyond the database is invalid.
    opcode, handle, code = error_fields(await session.raw_request(struct.pack('<BH', 0x0A, 0xFFF0)))
    assert (opcode, handle, code) == (0x0A, 0xFFF0, att.ATT_INVALID_HANDLE_ERROR), (opcode, handle, code)

    # Still usable: reads and writes work normally.
    assert await session.read(location) == b'\x01'
    await session.write(session.characteristic(ECHO), b'still here')
    assert await session.read(session.characteristic(ECHO)) == b'still here'
    assert example.process.returncode is None, example.log
