"""--btsnoop writes a capture Wireshark can open: the btsnoop header and one record per packet."""

from __future__ import annotations

import asyncio
import signal
import struct


def read_btsnoop(path):
    with open(path, 'rb') as capture:
        data = capture.read()
    assert data[:8] == b'btsnoop\0', data[:16]
    version, datalink = struct.unpack('>II', data[8:16])
    assert (version, datalink) == (1, 1002)  # H4 framing
    records, offset = [], 16
    while offset < len(data):
        original, included, flags, _drops, _timestamp = struct.unpack('>IIIIq', data[offset:offset + 24])
        assert original == included
        records.append((flags, data[offset + 24:offset + 24 + included]))
        offset += 24 + included
    assert offset == len(data), 'trailing bytes after the last record'
    return records


async def test_btsnoop_capture_records_every_packet(harness, spawn_daemon, tmp_path):
    path = tmp_path / 'trace.btsnoop'
    daemon = await spawn_daemon(harness.port, 'snooped', '--btsnoop', str(path))
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    daemon.send_signal(signal.SIGTERM)
    assert await daemon.wait_exit(5) == 0
    records = read_btsnoop(path)
    sent_commands = [packet for flags, packet in records if flags == 0b10 and packet[0] == 0x01]
    received_events = [packet for flags, packet in records if flags == 0b11 and packet[0] == 0x04]
    # HCI_Reset goes first; LE Set Advertising Enable (0x200a) with 1 is in the capture.
    assert sent_commands[0][:3] == bytes([0x01, 0x03, 0x0c])
    assert bytes([0x01, 0x0a, 0x20, 0x01, 0x01]) in sent_commands
    # Every command got its Command Complete or Command Status back.
    assert len(received_events) >= len(sent_commands)
    assert len(sent_commands) > 10, len(sent_commands)


async def test_an_existing_capture_file_stops_the_daemon_with_a_status_the_unit_does_not_restart(harness, spawn_daemon, tmp_path):
    path = tmp_path / 'trace.btsnoop'
    path.write_bytes(b'an earlier capture')
    daemon = await spawn_daemon(harness.port, 'snooped', '--btsnoop', str(path))
    # EX_CANTCREAT, listed in the unit's RestartPreventExitStatus=: no restart loop.
    assert await daemon.wait_exit(10) == 73, daemon.log
    assert 'exists already' in daemon.log, daemon.log
    assert path.read_bytes() == b'an earlier capture'
