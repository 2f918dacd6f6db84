"""A minimal raw H4 host over TCP, to check the harness controller's answers
byte by byte (used by the self-tests)."""

from __future__ import annotations

import asyncio
import struct

from .server import H4Parser

# C1:22:33:44:55:66 (random static), in HCI byte order.
RANDOM_STATIC_TEXT = 'C1:22:33:44:55:66'
RANDOM_STATIC = bytes.fromhex('6655443322C1')


class RawHost:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.packets: asyncio.Queue[bytes] = asyncio.Queue()
        self._task = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, port: int, timeout: float = 5.0) -> RawHost:
        reader, writer = await asyncio.wait_for(asyncio.open_connection('127.0.0.1', port), timeout)
        return cls(reader, writer)

    async def _read(self) -> None:
        parser = H4Parser()
        while data := await self.reader.read(65536):
            for packet in parser.feed(data):
                await self.packets.put(packet)

    async def close(self) -> None:
        self.writer.transport.abort()
        self._task.cancel()

    def send(self, packet: bytes) -> None:
        self.writer.write(packet)

    async def next_event(self, timeout: float = 2.0, code: int | None = None) -> bytes:
        """Next event (skipping other packets, and other codes when `code`)."""

        async def wait() -> bytes:
            while True:
                packet = await self.packets.get()
                if packet[0] == 0x04 and (code is None or packet[1] == code):
                    return packet

        return await asyncio.wait_for(wait(), timeout)

    async def command(self, opcode: int, parameters: bytes = b'', timeout: float = 2.0) -> bytes:
        """Send a command; return the Command Complete / Status event that
        answers it (other events are dropped)."""
        self.send(struct.pack('<BHB', 0x01, opcode, len(parameters)) + parameters)

        async def wait() -> bytes:
            while True:
                event = await self.next_event(timeout)
                if event[1] == 0x0E and struct.unpack_from('<H', event, 4)[0] == opcode:
                    return event
                if event[1] == 0x0F and struct.unpack_from('<H', event, 5)[0] == opcode:
                    return event

        return await asyncio.wait_for(wait(), timeout)

    async def command_ok(self, opcode: int, parameters: bytes = b'') -> bytes:
        """Command Complete return parameters, asserting success."""
        event = await self.command(opcode, parameters)
        assert event[1] == 0x0E, f'expected Command Complete for 0x{opcode:04X}, got {event.hex()}'
        assert event[6] == 0x00, f'command 0x{opcode:04X} failed: {event.hex()}'
        return event[6:]

    async def start_advertising(
        self,
        adv_data: bytes,
        scan_rsp: bytes,
        random_address: bytes | None = RANDOM_STATIC,
        adv_type: int = 0x00,
    ) -> None:
        """LE-only init and connectable advertising, as blesensord does it.
        `random_address` is in HCI (little-endian) byte order; None: public."""
        await self.command_ok(0x0C03)  # Reset
        await self.command_ok(0x0C01, (0x3FFFFFFFFFFFFFFF).to_bytes(8, 'little'))
        await self.command_ok(0x2001, (0x1F | 0x40 | 0x800).to_bytes(8, 'little'))
        own_type = 0x00
        if random_address is not None:
            await self.command_ok(0x2005, random_address)
            own_type = 0x01
        params = struct.pack('<HHBBB6sBB', 160, 160, adv_type, own_type, 0, bytes(6), 0x07, 0)
        await self.command_ok(0x2006, params)
        await self.command_ok(0x2008, bytes([len(adv_data)]) + adv_data.ljust(31, b'\0'))
        await self.command_ok(0x2009, bytes([len(scan_rsp)]) + scan_rsp.ljust(31, b'\0'))
        await self.command_ok(0x200A, b'\x01')
