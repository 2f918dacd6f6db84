#!/usr/bin/env python3
"""Stand-in for the `heart-rate-peripheral` example built on a Bumble host,
implementing its command-line, GATT database and logging contract
(shared-brief EXAMPLE-CONTRACT.md). It exists only to validate the GATT
interop tests while the Swift example is being written:

    HEART_RATE_PERIPHERAL=$PWD/Tests/Interop/tools/fake_heart_rate_peripheral.py \
        BLESENSORD=... Tests/Interop/run-tests.sh -k gatt

Bumble's GATT server does not check write/read permissions and cannot parse
unknown opcodes or truncated PDUs, so raw ATT PDUs are screened here first
(Request Not Supported, Invalid PDU, Read/Write Not Permitted) before Bumble
sees them. There is no transmit queue, so "queue full" / "ready to update"
are never logged.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from bumble import att, hci  # noqa: E402
from bumble.core import UUID, AdvertisingData  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import (  # noqa: E402
    GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR,
    Characteristic,
    CharacteristicValue,
    Descriptor,
    Service,
)
from bumble.transport import open_transport  # noqa: E402

HEART_RATE_SERVICE = UUID.from_16_bits(0x180D)
HRM = UUID.from_16_bits(0x2A37)
BODY_SENSOR_LOCATION = UUID.from_16_bits(0x2A38)
CONTROL_POINT = UUID.from_16_bits(0x2A39)
EXAMPLE_SERVICE = UUID('B1E5C000-5E45-4F52-8000-00805F9B34FB')
ECHO = UUID('B1E5C001-5E45-4F52-8000-00805F9B34FB')
LONG = UUID('B1E5C002-5E45-4F52-8000-00805F9B34FB')
COUNTER = UUID('B1E5C003-5E45-4F52-8000-00805F9B34FB')

MAX_VALUE = 512
COUNTER_PERIOD = 0.2
OWN_ADDRESS = 'C3:11:22:33:44:66'

# Minimum length of each client-to-server PDU (opcode included); exact
# lengths where the PDU has no variable part.
REQUEST_LENGTHS = {
    0x02: (3, 3),  # Exchange MTU
    0x04: (5, 5),  # Find Information
    0x06: (7, None),  # Find By Type Value
    0x08: (7, 21),  # Read By Type
    0x0A: (3, 3),  # Read
    0x0C: (5, 5),  # Read Blob
    0x0E: (5, None),  # Read Multiple
    0x10: (7, 21),  # Read By Group Type
    0x12: (3, None),  # Write
    0x16: (5, None),  # Prepare Write
    0x18: (2, 2),  # Execute Write
    0x20: (5, None),  # Read Multiple Variable
}
COMMAND_LENGTHS = {0x52: 3, 0xD2: 15, 0x1E: 1}  # Write Command, Signed Write, Confirmation


def log(message: str) -> None:
    print(f'{time.strftime("%H:%M:%S")} heart-rate-peripheral: {message}', file=sys.stderr, flush=True)


def uuid_text(uuid: UUID) -> str:
    return uuid.to_hex_str('-').upper()


def address_text(connection) -> str:
    return connection.peer_address.to_string(with_type_qualifier=False).upper()


class ExampleDevice(Device):
    """Bumble device with raw ATT screening in front of its GATT server."""

    def on_gatt_pdu(self, connection_handle: int, pdu: bytes) -> None:  # type: ignore[override]
        connection = self.lookup_connection(connection_handle)
        if connection is None or not pdu:
            return
        opcode = pdu[0]

        def error(code: int, handle: int = 0) -> None:
            self.send_l2cap_pdu(
                connection_handle, att.ATT_CID, struct.pack('<BBHB', 0x01, opcode, handle, code)
            )

        if opcode in REQUEST_LENGTHS:
            minimum, maximum = REQUEST_LENGTHS[opcode]
            if len(pdu) < minimum or (maximum is not None and len(pdu) not in (minimum, maximum)):
                return error(att.ATT_INVALID_PDU_ERROR)
            if opcode in (0x0A, 0x0C, 0x12, 0x16):
                handle = struct.unpack_from('<H', pdu, 1)[0]
                attribute = self.gatt_server.get_attribute(handle)
                if attribute is not None:
                    if opcode in (0x0A, 0x0C) and not attribute.permissions & att.Attribute.READABLE:
                        return error(att.ATT_READ_NOT_PERMITTED_ERROR, handle)
                    if opcode in (0x12, 0x16) and not attribute.permissions & att.Attribute.WRITEABLE:
                        return error(att.ATT_WRITE_NOT_PERMITTED_ERROR, handle)
            if opcode == 0x02:
                client_mtu = struct.unpack_from('<H', pdu, 1)[0]
                super().on_gatt_pdu(connection_handle, pdu)
                log(f'mtu {address_text(connection)} {min(self.gatt_server.max_mtu, max(client_mtu, 23))}')
                return
        elif opcode in COMMAND_LENGTHS:
            if len(pdu) < COMMAND_LENGTHS[opcode]:
                return  # a malformed command is dropped
            if opcode == 0x52:
                handle = struct.unpack_from('<H', pdu, 1)[0]
                attribute = self.gatt_server.get_attribute(handle)
                if attribute is not None and not attribute.permissions & att.Attribute.WRITEABLE:
                    return
            if opcode == 0xD2:
                return  # signed writes are not supported: ignored like any unknown command
        elif opcode & 0x01 and opcode in att.ATT_PDU.pdu_classes:
            pass  # server-to-client PDUs belong to our (unused) client
        elif opcode & 0x40:
            return  # unknown command: ignored
        else:
            return error(att.ATT_REQUEST_NOT_SUPPORTED_ERROR)
        try:
            super().on_gatt_pdu(connection_handle, pdu)
        except Exception as failure:  # never let a peer's bytes stop us
            log(f'ATT PDU {pdu.hex()} failed: {failure!r}')


class HeartRatePeripheral:
    def __init__(self, args: argparse.Namespace, device: ExampleDevice) -> None:
        self.args = args
        self.device = device
        self.echo = b'hello'
        self.counter = 0
        self.bpm = 60
        self.subscribers: dict[UUID, set] = {HRM: set(), COUNTER: set()}
        self.connections: set = set()
        self.wakeup = asyncio.Event()

        self.hrm = Characteristic(
            HRM, Characteristic.Properties.NOTIFY, att.Attribute.Permissions(0), b'\x00\x3c'
        )
        self.location = Characteristic(
            BODY_SENSOR_LOCATION, Characteristic.Properties.READ,
            Characteristic.READABLE, b'\x01',
        )
        self.control_point = Characteristic(
            CONTROL_POINT, Characteristic.Properties.WRITE, Characteristic.WRITEABLE,
            CharacteristicValue(write=self.write_control_point),
        )
        self.echo_characteristic = Characteristic(
            ECHO,
            Characteristic.Properties.READ | Characteristic.Properties.WRITE
            | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
            Characteristic.READABLE | Characteristic.WRITEABLE,
            CharacteristicValue(read=lambda _c: self.echo, write=self.write_echo),
            descriptors=[
                Descriptor(GATT_CHARACTERISTIC_USER_DESCRIPTION_DESCRIPTOR, Descriptor.READABLE, b'Echo')
            ],
        )
        self.long = Characteristic(
            LONG, Characteristic.Properties.READ, Characteristic.READABLE,
            bytes(i & 0xFF for i in range(400)),
        )
        self.counter_characteristic = Characteristic(
            COUNTER, Characteristic.Properties.READ | Characteristic.Properties.INDICATE,
            Characteristic.READABLE,
            CharacteristicValue(read=lambda _c: struct.pack('<I', self.counter)),
        )
        device.add_services([
            Service(HEART_RATE_SERVICE, [self.hrm, self.location, self.control_point]),
            Service(EXAMPLE_SERVICE, [self.echo_characteristic, self.long, self.counter_characteristic]),
        ])
        device.gatt_server.max_mtu = args.mtu
        device.gatt_server.on('characteristic_subscription', self.on_subscription)
        device.on('connection', self.on_connection)

    # -- requests ------------------------------------------------------------
    def write_control_point(self, connection, value: bytes) -> None:
        if value != b'\x01':
            raise att.ATT_Error(0x80)
        log(f'write {address_text(connection)} {uuid_text(CONTROL_POINT)} {value.hex()}')

    def write_echo(self, connection, value: bytes) -> None:
        if len(value) > MAX_VALUE:
            raise att.ATT_Error(att.ATT_INVALID_ATTRIBUTE_LENGTH_ERROR)
        self.echo = bytes(value)
        log(f'write {address_text(connection)} {uuid_text(ECHO)} {value.hex()}')

    # -- connections and subscriptions ----------------------------------------
    async def advertise(self) -> None:
        data = bytes(AdvertisingData([
            (AdvertisingData.FLAGS, bytes([0x06])),
            (AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS, bytes(HEART_RATE_SERVICE.to_bytes())),
            (AdvertisingData.COMPLETE_LOCAL_NAME, self.args.name.encode()),
        ]))
        try:
            await self.device.start_advertising(
                own_address_type=hci.OwnAddressType.RANDOM, advertising_data=data,
                scan_response_data=b'', advertising_interval_min=100, advertising_interval_max=100,
            )
        except Exception as failure:
            log(f'advertising failed: {failure!r}')
            return
        log('advertising enabled')

    def on_connection(self, connection) -> None:
        address = address_text(connection)
        self.connections.add(connection)
        log(f'central connected {address}')

        def on_disconnection(_reason: int) -> None:
            self.connections.discard(connection)
            for subscribers in self.subscribers.values():
                subscribers.discard(connection)
            log(f'central disconnected {address}')
            asyncio.ensure_future(self.advertise())

        connection.on('disconnection', on_disconnection)
        # Keep advertising so that more centrals can connect.
        asyncio.ensure_future(self.advertise())

    def on_subscription(self, bearer, characteristic, notify: bool, indicate: bool) -> None:
        uuid = characteristic.uuid
        if uuid not in self.subscribers:
            return
        enabled = indicate if uuid == COUNTER else notify
        subscribers = self.subscribers[uuid]
        if enabled and bearer not in subscribers:
            subscribers.add(bearer)
            log(f'subscribed {address_text(bearer)} {uuid_text(uuid)}')
            self.wakeup.set()
        elif not enabled and bearer in subscribers:
            subscribers.discard(bearer)
            log(f'unsubscribed {address_text(bearer)} {uuid_text(uuid)}')

    # -- updates ---------------------------------------------------------------
    async def heart_rate_loop(self) -> None:
        period = 1.0 / self.args.rate
        next_tick = time.monotonic()
        while True:
            if not self.subscribers[HRM]:
                self.wakeup.clear()
                await self.wakeup.wait()
                next_tick = time.monotonic()
            value = bytes([0x00, self.bpm])
            self.bpm = 60 if self.bpm == 99 else self.bpm + 1
            log(f'notify {uuid_text(HRM)} {value.hex()}')
            await self.device.notify_subscribers(self.hrm, value)
            next_tick += period
            await asyncio.sleep(max(0.0, next_tick - time.monotonic()))

    async def counter_loop(self) -> None:
        while True:
            await asyncio.sleep(COUNTER_PERIOD)
            if not self.subscribers[COUNTER]:
                continue
            self.counter = (self.counter + 1) & 0xFFFFFFFF
            value = struct.pack('<I', self.counter)
            log(f'indicate {uuid_text(COUNTER)} {value.hex()}')
            try:
                await self.device.indicate_subscribers(self.counter_characteristic, value)
            except Exception as failure:
                log(f'indication failed: {failure!r}')


async def open_with_retry(host: str, port: int, deadline: float):
    while True:
        try:
            return await open_transport(f'tcp-client:{host}:{port}')
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def run(args: argparse.Namespace) -> int:
    kind, _, endpoint = args.transport.partition(':')
    host, _, port = endpoint.rpartition(':')
    if kind != 'tcp' or not port.isdigit():
        log(f'unsupported transport {args.transport!r}')
        return 2
    transport = await open_with_retry(host, int(port), time.monotonic() + 30)
    device = ExampleDevice.with_hci(args.name, hci.Address(OWN_ADDRESS), transport.source, transport.sink)
    example = HeartRatePeripheral(args, device)
    await device.power_on()
    await example.advertise()
    tasks = [asyncio.ensure_future(example.heart_rate_loop()), asyncio.ensure_future(example.counter_loop())]

    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, lambda: stop.done() or stop.set_result(0))
    lost = asyncio.ensure_future(transport.source.wait_for_termination())
    done, _ = await asyncio.wait([stop, lost], return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    if lost in done:
        log('controller link lost')
        return 1
    await transport.close()
    return 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--transport', required=True)
    parser.add_argument('--name', required=True)
    parser.add_argument('--rate', type=float, default=1.0)
    parser.add_argument('--mtu', type=int, default=247)
    parser.add_argument('--log-level', default='info')
    args = parser.parse_args()
    if not 0 < args.rate <= 10000 or not 23 <= args.mtu <= 517:
        parser.error('--rate must be in (0, 10000] and --mtu in 23...517')
    sys.exit(asyncio.run(run(args)))


if __name__ == '__main__':
    main()
