"""GATT client helpers for the example-peripheral interop tests: connecting a
harness central to the example, a tap on Bumble's GATT client (opcodes sent,
notifications and indications received, whatever the subscriptions), raw ATT
requests, and waiting with timeouts."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from collections.abc import Callable

from bumble import att
from bumble.core import UUID
from bumble.device import Connection, Peer
from bumble.gatt_client import CharacteristicProxy, Client

from .central import AdvertiserRecord, Central
from .daemon import Daemon

HEART_RATE_SERVICE = UUID.from_16_bits(0x180D)
HRM = UUID.from_16_bits(0x2A37)
BODY_SENSOR_LOCATION = UUID.from_16_bits(0x2A38)
CONTROL_POINT = UUID.from_16_bits(0x2A39)
EXAMPLE_SERVICE = UUID('B1E5C000-5E45-4F52-8000-00805F9B34FB')
ECHO = UUID('B1E5C001-5E45-4F52-8000-00805F9B34FB')
LONG = UUID('B1E5C002-5E45-4F52-8000-00805F9B34FB')
COUNTER = UUID('B1E5C003-5E45-4F52-8000-00805F9B34FB')
CCCD = UUID.from_16_bits(0x2902)
LONG_VALUE = bytes(i & 0xFF for i in range(400))
OUR_MTU = 247  # the example's default --mtu


def uuid_text(uuid: UUID) -> str:
    """UUID as the example logs it: 2A37, or the full 128-bit form, upper case."""
    return uuid.to_hex_str('-').upper()


class ClientTap:
    """Records what a Bumble GATT client sends (opcodes) and every
    notification / indication it receives, by handle, independently of
    Bumble's subscriber bookkeeping (so values arriving after an
    unsubscribe are still seen)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.sent_opcodes: list[int] = []
        self.notifications: dict[int, list[bytes]] = collections.defaultdict(list)
        self.indications: dict[int, list[bytes]] = collections.defaultdict(list)
        self._changed = asyncio.Event()
        send, receive = client.send_gatt_pdu, client.on_gatt_pdu

        def tapped_send(pdu: bytes) -> None:
            self.sent_opcodes.append(pdu[0])
            send(pdu)

        def tapped_receive(pdu: att.ATT_PDU) -> None:
            if pdu.op_code == att.Opcode.ATT_HANDLE_VALUE_NOTIFICATION:
                self.notifications[pdu.attribute_handle].append(bytes(pdu.attribute_value))
                self._changed.set()
            elif pdu.op_code == att.Opcode.ATT_HANDLE_VALUE_INDICATION:
                self.indications[pdu.attribute_handle].append(bytes(pdu.attribute_value))
                self._changed.set()
            receive(pdu)

        client.send_gatt_pdu = tapped_send  # type: ignore[method-assign]
        client.on_gatt_pdu = tapped_receive  # type: ignore[method-assign]

    async def wait_for(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        async def wait() -> None:
            while not condition():
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f'timed out after {timeout} s waiting for {what}') from None


@dataclasses.dataclass
class Session:
    """One central connected to the example, with its GATT client tapped."""

    central: Central
    record: AdvertiserRecord
    connection: Connection
    peer: Peer
    tap: ClientTap

    @property
    def client(self) -> Client:
        return self.peer.gatt_client

    async def discover(self, timeout: float = 10.0) -> None:
        async def discover_all() -> None:
            await self.peer.discover_services()
            for service in self.peer.services:
                await service.discover_characteristics()
                for characteristic in service.characteristics:
                    await characteristic.discover_descriptors()

        await asyncio.wait_for(discover_all(), timeout)

    def characteristic(self, uuid: UUID) -> CharacteristicProxy:
        found = [
            c for s in self.peer.services for c in s.characteristics if c.uuid == uuid
        ]
        assert len(found) == 1, f'expected one characteristic {uuid}, found {len(found)}'
        return found[0]

    async def exchange_mtu(self, mtu: int, timeout: float = 5.0) -> int:
        """Exchange MTU with `mtu` as ours; returns the server's Rx MTU and
        applies min(ours, theirs) to the bearer as Bumble's request_mtu does."""
        response = await asyncio.wait_for(
            self.client.send_request(att.ATT_Exchange_MTU_Request(client_rx_mtu=mtu)), timeout
        )
        assert response.op_code == att.Opcode.ATT_EXCHANGE_MTU_RESPONSE, str(response)
        self.client.mtu_exchange_done = True
        self.client.mtu = min(mtu, response.server_rx_mtu)
        return response.server_rx_mtu

    async def read(self, attribute, timeout: float = 5.0) -> bytes:
        return await asyncio.wait_for(self.client.read_value(attribute), timeout)

    async def write(self, attribute, value: bytes, with_response: bool = True, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self.client.write_value(attribute, value, with_response), timeout)

    async def att_error_of(self, operation, timeout: float = 5.0) -> int:
        """Runs a client operation expected to fail; returns the ATT error code."""
        try:
            await asyncio.wait_for(operation, timeout)
        except att.ATT_Error as error:
            return error.error_code
        raise AssertionError('the operation succeeded; an ATT Error Response was expected')

    async def raw_request(self, pdu: bytes, timeout: float = 5.0) -> att.ATT_PDU:
        """Send raw ATT bytes as a request (through the client's one-at-a-time
        request slot) and return the response PDU. The expected response is an
        Error Response; any other response is ignored by Bumble and times out."""
        client = self.client
        async with client.request_semaphore:
            future = asyncio.get_running_loop().create_future()
            # Placeholder: Bumble matches non-error responses against its name.
            client.pending_request = att.ATT_Read_Request(attribute_handle=0)
            client.pending_response = future
            try:
                client.send_gatt_pdu(pdu)
                return await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise AssertionError(f'no Error Response to raw ATT PDU {pdu.hex()} within {timeout} s') from None
            finally:
                client.pending_request = None
                client.pending_response = None


async def wait_until(condition: Callable[[], bool], timeout: float, what: str, poll: float = 0.02) -> None:
    """For conditions without an event to wait on (e.g. a value read back)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f'timed out after {timeout} s waiting for {what}')
        await asyncio.sleep(poll)


async def start_example(harness, spawn_example, *extra: str, name: str = 'hr-test') -> Daemon:
    example = await spawn_example(harness.port, name, *extra)
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    await example.wait_for_log('advertising enabled', timeout=5)
    return example


async def connect(central: Central, example: Daemon, timeout: float = 5.0) -> Session:
    """Scan for the example, connect, wait until it logged the connection."""
    record = await central.scan_for(None, timeout=timeout)
    connection = await central.connect(record.address, timeout=timeout)
    await example.wait_for_log(f'central connected {central.address}', timeout=timeout)
    peer = Peer(connection)
    return Session(central, record, connection, peer, ClientTap(peer.gatt_client))


def logged_values(example: Daemon, prefix: str) -> list[bytes]:
    """Values of the log lines containing `prefix` (e.g. 'notify 2A37 '), in order."""
    values = []
    for line in example.lines:
        if prefix in line:
            values.append(bytes.fromhex(line.split(prefix, 1)[1].split()[0]))
    return values


def is_subsequence(values: list[bytes], sequence: list[bytes]) -> bool:
    iterator = iter(sequence)
    return all(any(value == candidate for candidate in iterator) for value in values)
