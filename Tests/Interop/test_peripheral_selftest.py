"""Self-test of harness/peripheral.py with Bumble on both sides: a Bumble central reaches
the Bumble peripheral through the harness controller over H4/TCP, exactly as
`blesensor`'s central commands do in test_central_*.py. What passes here is what those
tests rely on: scan data and the scan response, the database (included service, user
description), short and long reads and writes, write without response under paced
credits, notifications, indications, Service Changed, the pairing methods, re-encryption
from the peripheral's key store, and the raw ATT responder."""

from __future__ import annotations

import asyncio
import struct

import pytest
from bumble import att, hci
from bumble.device import Device, Peer
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig
from bumble.transport import open_transport

from harness.controller import SCAN_RSP
from harness.credits import CreditPacer
from harness.peripheral import (
    ADDRESS, ADVERTISING_DATA, AUTHENTICATED, AUTHENTICATED_VALUE, BATTERY_LEVEL, BATTERY_SERVICE,
    ENCRYPTED, ENCRYPTED_VALUE, HEART_RATE_SERVICE, HRM, INDICATE_ONLY, LONG_READ, LONG_READ_VALUE,
    LONG_WRITE, PASSKEY, SCAN_RESPONSE_DATA, USER_DESCRIPTION, USER_DESCRIPTION_VALUE,
    WRITE_NO_RESPONSE, Peripheral,
)
from harness.security import IO, RecordingDelegate

CENTRAL_ADDRESS = 'C0:00:00:00:00:C9'


class TcpCentral:
    """A Bumble central whose controller is the harness controller, over H4/TCP."""

    def __init__(self, transport, device: Device) -> None:
        self.transport, self.device = transport, device
        self.reports: list[tuple[int, bytes]] = []  # (event type, data) from the peripheral
        self.report_seen = asyncio.Event()
        self.delegate = RecordingDelegate()
        self.sc, self.mitm = True, False
        device.keystore = MemoryKeyStore()
        device.pairing_config_factory = lambda _c: PairingConfig(
            sc=self.sc, mitm=self.mitm, bonding=True, delegate=self.delegate,
            identity_address_type=PairingConfig.AddressType.RANDOM)

        def on_report(report) -> None:
            if report.address.to_string(False) == ADDRESS:
                self.reports.append((int(report.event_type), bytes(report.data)))
                self.report_seen.set()

        device.host.on('advertising_report', on_report)

    async def wait_reports(self, condition, timeout: float = 5.0) -> None:
        async def wait() -> None:
            while not condition():
                self.report_seen.clear()
                await self.report_seen.wait()
        await asyncio.wait_for(wait(), timeout)

    async def connect(self) -> Peer:
        connection = await asyncio.wait_for(
            self.device.connect(hci.Address(ADDRESS, hci.Address.RANDOM_DEVICE_ADDRESS), timeout=5), 6)
        return Peer(connection)


@pytest.fixture
async def tcp_central(harness):
    transport = await asyncio.wait_for(open_transport(f'tcp-client:127.0.0.1:{harness.port}'), 5)
    device = Device.with_hci('selftest-central', hci.Address(CENTRAL_ADDRESS), transport.source, transport.sink)
    central = TcpCentral(transport, device)
    yield central
    await transport.close()


async def power_on(central: TcpCentral) -> None:
    await asyncio.wait_for(central.device.power_on(), 5)


async def discover(peer: Peer) -> None:
    await asyncio.wait_for(peer.discover_all(), 10)


def characteristic(peer: Peer, uuid):
    [found] = [c for s in peer.services for c in s.characteristics if c.uuid == uuid]
    return found


async def test_advertising_and_scan_response(tcp_central: TcpCentral, peripheral: Peripheral):
    await power_on(tcp_central)
    await tcp_central.device.start_scanning(legacy=True, active=True, filter_duplicates=False)
    await tcp_central.wait_reports(lambda: any(t == SCAN_RSP for t, _ in tcp_central.reports))
    await tcp_central.device.stop_scanning()
    assert (0x00, ADVERTISING_DATA) in tcp_central.reports
    assert (SCAN_RSP, SCAN_RESPONSE_DATA) in tcp_central.reports

    tcp_central.reports.clear()
    await tcp_central.device.start_scanning(legacy=True, active=False, filter_duplicates=False)
    await tcp_central.wait_reports(lambda: len(tcp_central.reports) >= 3)
    await tcp_central.device.stop_scanning()
    assert {t for t, _ in tcp_central.reports} == {0x00}, 'a passive scan got a scan response'


async def test_gatt_database_reads_writes_and_subscriptions(tcp_central: TcpCentral, peripheral: Peripheral):
    await power_on(tcp_central)
    peer = await tcp_central.connect()
    await discover(peer)
    [heart_rate] = [s for s in peer.services if s.uuid == HEART_RATE_SERVICE]
    included = await asyncio.wait_for(peer.gatt_client.discover_included_services(heart_rate), 5)
    assert [s.uuid for s in included] == [BATTERY_SERVICE]
    long_read = characteristic(peer, LONG_READ)
    [description] = [d for d in long_read.descriptors if d.type == USER_DESCRIPTION]
    assert await asyncio.wait_for(description.read_value(), 5) == USER_DESCRIPTION_VALUE

    assert await asyncio.wait_for(characteristic(peer, BATTERY_LEVEL).read_value(), 5) == b'\x64'
    # Default MTU 23: 300 bytes take a Read and Read Blobs.
    assert await asyncio.wait_for(long_read.read_value(), 5) == LONG_READ_VALUE
    assert peripheral.requests_with_opcode(att.Opcode.ATT_READ_BLOB_REQUEST)

    value = bytes(range(200))
    await asyncio.wait_for(characteristic(peer, LONG_WRITE).write_value(value, with_response=True), 5)
    assert peripheral.long_write_value == value
    assert peripheral.requests_with_opcode(att.Opcode.ATT_PREPARE_WRITE_REQUEST)
    assert peripheral.requests_with_opcode(att.Opcode.ATT_EXECUTE_WRITE_REQUEST)

    received: list[bytes] = []
    got = asyncio.Event()

    def on_value(v: bytes) -> None:
        received.append(bytes(v))
        got.set()

    await asyncio.wait_for(characteristic(peer, HRM).subscribe(on_value), 5)
    assert peripheral.subscribed(peripheral.hrm)
    await peripheral.notify(peripheral.hrm, b'\x06\x49')
    await asyncio.wait_for(got.wait(), 5)
    got.clear()
    # Indications: the peripheral's call returns only when the central confirmed.
    await asyncio.wait_for(characteristic(peer, INDICATE_ONLY).subscribe(on_value, prefer_notify=False), 5)
    await peripheral.indicate(peripheral.indicate_only, b'\x2a')
    await asyncio.wait_for(got.wait(), 5)
    assert received == [b'\x06\x49', b'\x2a']

    # Service Changed to a client that subscribed to something else: confirmed, and the
    # new service is there on rediscovery.
    service = await peripheral.add_runtime_service()
    await peripheral.indicate_service_changed(peripheral.connection, service.handle, service.end_group_handle)
    fresh = Peer(peer.connection)
    await discover(fresh)
    assert any(s.uuid == service.uuid for s in fresh.services)


async def test_write_without_response_under_paced_credits(tcp_central: TcpCentral, harness, peripheral: Peripheral):
    pacer = CreditPacer(harness.controller, buffers=4)
    await power_on(tcp_central)
    peer = await tcp_central.connect()
    await discover(peer)
    target = characteristic(peer, WRITE_NO_RESPONSE)
    values = [struct.pack('<H', i) for i in range(200)]
    for v in values:
        await target.write_value(v, with_response=False)
    await peripheral.wait_for(lambda: len(peripheral.wwr_values) == 200, '200 writes', timeout=10)
    pacer.finish()
    assert peripheral.wwr_values == values
    assert pacer.exhausted >= 20, pacer.exhausted
    assert harness.controller.violations == []


# (peripheral io, central io, sc, expected questions on the peripheral's side, MITM)
PAIRINGS = {
    'lesc-just-works': (IO.NO_OUTPUT_NO_INPUT, IO.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT, True, None, False),
    'lesc-passkey': (IO.DISPLAY_OUTPUT_ONLY, IO.KEYBOARD_INPUT_ONLY, True, 'generated', True),
    'lesc-numeric-comparison': (IO.DISPLAY_OUTPUT_AND_YES_NO_INPUT, IO.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT, True, 'compare', True),
    'legacy-just-works': (IO.NO_OUTPUT_NO_INPUT, IO.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT, False, None, False),
    'legacy-passkey': (IO.DISPLAY_OUTPUT_ONLY, IO.KEYBOARD_INPUT_ONLY, False, 'generated', True),
}


@pytest.mark.parametrize('method', PAIRINGS)
async def test_pairing_and_re_encryption(tcp_central: TcpCentral, peripheral: Peripheral, method: str):
    p_io, c_io, sc, question, mitm = PAIRINGS[method]
    delegate = peripheral.configure_pairing(p_io, sc=sc)
    tcp_central.delegate = RecordingDelegate(c_io, passkey=PASSKEY)
    tcp_central.sc, tcp_central.mitm = sc, mitm
    await power_on(tcp_central)
    peer = await tcp_central.connect()
    await discover(peer)
    encrypted = characteristic(peer, ENCRYPTED)
    try:
        await asyncio.wait_for(encrypted.read_value(), 5)
        raise AssertionError('read of the encrypted characteristic succeeded unencrypted')
    except att.ATT_Error as error:
        assert error.error_code == att.ErrorCode.INSUFFICIENT_AUTHENTICATION

    await asyncio.wait_for(peer.connection.pair(), 10)
    assert len(peripheral.pairings) == 1 and peripheral.pairing_failures == []
    assert bool(peripheral.pairing_requests()[0].auth_req & 0x08) == sc  # SC bit
    if question is None:
        assert delegate.asked('generated') == [] and delegate.asked('compare') == []
    else:
        assert delegate.asked(question)
    if question == 'compare':
        # Both sides compared the same number.
        assert delegate.asked('compare')[0][1] == tcp_central.delegate.asked('compare')[0][1]
    assert await asyncio.wait_for(encrypted.read_value(), 5) == ENCRYPTED_VALUE
    authenticated = characteristic(peer, AUTHENTICATED)
    if mitm:
        assert await asyncio.wait_for(authenticated.read_value(), 5) == AUTHENTICATED_VALUE

    # Second connection: the stored keys encrypt the link, no second pairing.
    await asyncio.wait_for(peer.connection.disconnect(), 5)
    await peripheral.wait_disconnected(1)
    if not sc:
        # Bumble's central re-encrypts a legacy bond with the LTK it distributed itself
        # (ltk_central); the peripheral rightly expects the one it distributed.
        keys = await tcp_central.device.keystore.get(ADDRESS)
        keys.ltk_central = keys.ltk_peripheral
        await tcp_central.device.keystore.update(ADDRESS, keys)
    peer = await tcp_central.connect()
    await asyncio.wait_for(peer.connection.encrypt(), 5)
    await peripheral.wait_for(lambda: len(peripheral.encryptions) == 2, 'second encryption')
    assert len(peripheral.pairings) == 1
    await discover(peer)
    assert await asyncio.wait_for(characteristic(peer, ENCRYPTED).read_value(), 5) == ENCRYPTED_VALUE


async def test_raw_att_responder(tcp_central: TcpCentral, peripheral: Peripheral):
    await power_on(tcp_central)
    peer = await tcp_central.connect()
    await discover(peer)
    battery = characteristic(peer, BATTERY_LEVEL)
    received: list[bytes] = []
    arrived = asyncio.Event()
    client = peer.gatt_client
    receive = client.on_gatt_pdu

    def tapped(pdu) -> None:
        received.append(bytes(pdu))
        arrived.set()
        receive(pdu)

    client.on_gatt_pdu = tapped
    # A Read Request of the battery level answered with a Write Response.
    peripheral.att_override = lambda raw: b'\x13' if raw[:3] == bytes([0x0A]) + struct.pack('<H', battery.handle) else None
    read = asyncio.ensure_future(battery.read_value())
    await asyncio.wait_for(arrived.wait(), 5)
    read.cancel()
    assert received == [b'\x13']
