"""A peripheral answering ATT with garbage: a response of the wrong opcode, a truncated
PDU, a discovery answer naming a handle outside the range asked for (a client that
trusts it can loop forever). `blesensor read` must exit 1 with a clear `error:` line
within a bounded time; the subprocess timeout is the failure bound for "never hangs"."""

from __future__ import annotations

import struct

import pytest
from bumble import att

from harness.central_cli import CentralCli, error_line
from harness.peripheral import ADDRESS, Peripheral

# Well below ATT's 30 s transaction timeout: a malformed answer is an error at once,
# not a request left waiting for a response that will never come.
BOUND = 15.0
CHARACTERISTIC_DECLARATION = struct.pack('<H', 0x2803)


def wrong_opcode(peripheral: Peripheral):
    """The battery level's Read Request answered with a Write Response."""
    request = bytes([att.Opcode.ATT_READ_REQUEST]) + struct.pack('<H', peripheral.battery.handle)
    return lambda raw: bytes([att.Opcode.ATT_WRITE_RESPONSE]) if raw == request else None


def truncated(peripheral: Peripheral):
    """The battery level's Read Request answered with an Error Response cut after 2 bytes."""
    request = bytes([att.Opcode.ATT_READ_REQUEST]) + struct.pack('<H', peripheral.battery.handle)
    return lambda raw: bytes([att.Opcode.ATT_ERROR_RESPONSE, att.Opcode.ATT_READ_REQUEST]) if raw == request else None


def truncated_discovery(_peripheral: Peripheral):
    """Every Read By Group Type Request answered with a list whose entry is cut short."""
    def answer(raw: bytes) -> bytes | None:
        if raw[0] == att.Opcode.ATT_READ_BY_GROUP_TYPE_REQUEST:
            return bytes([att.Opcode.ATT_READ_BY_GROUP_TYPE_RESPONSE, 6, 0x01, 0x00, 0x05])
        return None
    return answer


def handle_out_of_range(_peripheral: Peripheral):
    """Characteristic discovery answered with a declaration before the start handle asked
    for (handle 0 when the start is 1): the same answer again and again."""
    def answer(raw: bytes) -> bytes | None:
        if raw[0] == att.Opcode.ATT_READ_BY_TYPE_REQUEST and raw[5:] == CHARACTERISTIC_DECLARATION:
            start = struct.unpack_from('<H', raw, 1)[0]
            handle = max(start - 1, 0)
            entry = struct.pack('<HBHH', handle, 0x02, handle + 1, 0x2A19)
            return bytes([att.Opcode.ATT_READ_BY_TYPE_RESPONSE, len(entry)]) + entry
        return None
    return answer


@pytest.mark.parametrize('responder', [wrong_opcode, truncated, truncated_discovery, handle_out_of_range],
                         ids=lambda f: f.__name__)
async def test_malformed_response_fails_cleanly(central_cli: CentralCli, peripheral: Peripheral, responder):
    peripheral.att_override = responder(peripheral)
    run = await central_cli.run('read', ADDRESS, '2A19', '--json', timeout=BOUND)
    assert run.process.returncode == 1, run.describe()
    line = error_line(run)
    assert len(line) > len('error: ') + 10, line
    assert run.lines == [], 'a value was printed from a malformed exchange'
