"""Self-tests of the harness, independent of blesensord: a Bumble host (over
tcp-client) or a raw H4 host plays the peripheral under test."""

from __future__ import annotations

import asyncio
import struct

from bumble import hci
from bumble.device import Device, Peer
from bumble.transport import open_transport

from harness.rawhost import RANDOM_STATIC_TEXT, RawHost
from harness.server import HarnessServer

PERIPHERAL_ADDRESS = 'F1:22:33:44:55:66'
ADV = bytes.fromhex('020106') + bytes([7, 0x09]) + b'SelfT1'
SCAN_RSP = bytes.fromhex('0303 0F18'.replace(' ', '')) + bytes([4, 0xFF, 0xFF, 0xFF, 0x01])


async def bumble_peripheral(port: int):
    transport = await asyncio.wait_for(open_transport(f'tcp-client:127.0.0.1:{port}'), 5)
    device = Device.with_hci('peer', hci.Address(PERIPHERAL_ADDRESS), transport.source, transport.sink)
    await asyncio.wait_for(device.power_on(), 5)
    return transport, device


async def test_bumble_peripheral_scan_response_and_connection(harness: HarnessServer, central):
    transport, peer = await bumble_peripheral(harness.port)
    try:
        since = len(harness.controller.commands)
        await peer.start_advertising(
            advertising_data=ADV, scan_response_data=SCAN_RSP,
            own_address_type=hci.OwnAddressType.RANDOM,
        )
        await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True, since), 5)

        record = await central.scan_for(PERIPHERAL_ADDRESS)
        assert record.advertising_data == ADV
        assert record.scan_response == SCAN_RSP
        assert record.event_types == {0x00, 0x04}

        peer_connected = asyncio.get_running_loop().create_future()
        peer.on('connection', lambda c: peer_connected.done() or peer_connected.set_result(c))
        connection = await central.connect(record.address)
        peer_connection = await asyncio.wait_for(peer_connected, 5)
        # The controller stops legacy advertising when a connection is made.
        assert not harness.controller.advertising_enabled

        # ACL both ways: a GATT discovery of the peer's services.
        gatt_peer = Peer(connection)
        await asyncio.wait_for(gatt_peer.discover_services(), 5)
        assert gatt_peer.services, 'GATT discovery over the link returned nothing'

        peer_gone = asyncio.get_running_loop().create_future()
        peer_connection.on('disconnection', lambda r: peer_gone.done() or peer_gone.set_result(r))
        await central.disconnect(connection)
        assert await asyncio.wait_for(peer_gone, 5) == 0x13
        assert harness.controller.violations == []
        assert central.controller.violations == []
    finally:
        await transport.close()


async def test_public_address_peripheral_acl_reaches_central(harness: HarnessServer, central):
    transport, peer = await bumble_peripheral(harness.port)
    try:
        await peer.start_advertising(
            advertising_data=ADV, scan_response_data=b'',
            own_address_type=hci.OwnAddressType.PUBLIC,
        )
        record = await central.scan_for(harness.controller.public_address.to_string(False))
        assert record.address.is_public
        assert record.scan_response == b''  # an empty scan response is still a SCAN_RSP
        connection = await central.connect(record.address)
        gatt_peer = Peer(connection)
        # The stock link dropped a public-address peripheral's ACL: this hung.
        await asyncio.wait_for(gatt_peer.discover_services(), 5)
        assert gatt_peer.services
        await central.disconnect(connection)
    finally:
        await transport.close()


async def test_passive_scan_gets_no_scan_response(harness: HarnessServer, central):
    host = await RawHost.connect(harness.port)
    try:
        await host.start_advertising(ADV, SCAN_RSP)
        await central.start_scanning(active=False)
        record = await central.wait_for_advertiser(
            RANDOM_STATIC_TEXT, with_scan_response=False, min_advertisements=3
        )
        await central.stop_scanning()
        assert record.advertising_data == ADV
        assert record.scan_response is None
        assert record.event_types == {0x00}
    finally:
        await host.close()


async def test_reset_really_resets(harness: HarnessServer, central):
    host = await RawHost.connect(harness.port)
    try:
        await host.start_advertising(ADV, SCAN_RSP)
        record = await central.scan_for(RANDOM_STATIC_TEXT)
        connection = await central.connect(record.address)
        assert harness.controller.le_connections
        await host.next_event(code=0x3E)  # LE Connection Complete
        central_lost = asyncio.get_running_loop().create_future()
        connection.on('disconnection', lambda r: central_lost.done() or central_lost.set_result(r))

        await host.command_ok(0x0C03)
        advertiser = harness.controller.le_legacy_advertiser
        assert not advertiser.enabled
        assert advertiser.advertising_data == b'' and advertiser.scan_response_data == b''
        assert harness.controller.le_connections == {}
        assert harness.controller.le_event_mask == 0x1F
        # The central's link dropped as on a supervision timeout.
        assert await asyncio.wait_for(central_lost, 5) == 0x08
        assert await central.sees_no_advertising(RANDOM_STATIC_TEXT)
    finally:
        await host.close()


async def test_unanswered_commands_get_answers(harness: HarnessServer, central):
    host = await RawHost.connect(harness.port)
    try:
        # Vendor command: Command Complete, Unknown HCI Command.
        event = await host.command(0xFC01, b'\x01\x02')
        assert event == bytes([0x04, 0x0E, 0x04, 0x01, 0x01, 0xFC, 0x01])
        # Unparseable: LE Set Advertising Parameters with 1 byte of its 15.
        host.send(bytes([0x01, 0x06, 0x20, 0x01, 0x00]))
        event = await host.next_event(code=0x0E)
        assert event[4:7] == bytes([0x06, 0x20, 0x12])
        # LE Read Maximum Data Length: 251/2120 both ways.
        assert await host.command_ok(0x202F) == struct.pack('<BHHHH', 0, 251, 2120, 251, 2120)
        # Suggested default data length round trip and range check.
        await host.command_ok(0x2024, struct.pack('<HH', 251, 2120))
        assert await host.command_ok(0x2023) == struct.pack('<BHH', 0, 251, 2120)
        event = await host.command(0x2024, struct.pack('<HH', 300, 2120))
        assert event[6] == 0x12
        # Read Remote Version on an unknown handle: Command Status 0x02.
        event = await host.command(0x041D, struct.pack('<H', 0x0042))
        assert event[1:4] == bytes([0x0F, 0x04, 0x02])

        # With a connection: Read Remote Version, Set Data Length, Set PHY.
        await host.start_advertising(ADV, SCAN_RSP)
        record = await central.scan_for(RANDOM_STATIC_TEXT)
        connection = await central.connect(record.address)
        complete = await host.next_event(code=0x3E)
        assert complete[3] == 0x01 and complete[4] == 0x00
        handle = struct.unpack_from('<H', complete, 5)[0]

        event = await host.command(0x041D, struct.pack('<H', handle))
        assert event == bytes([0x04, 0x0F, 0x04, 0x00, 0x01, 0x1D, 0x04])
        event = await host.next_event(code=0x0C)
        assert event == bytes([0x04, 0x0C, 0x08, 0x00]) + struct.pack('<HBHH', handle, 0x09, 0xFFFF, 0)

        assert await host.command_ok(0x2022, struct.pack('<HHH', handle, 251, 2120)) == struct.pack('<BH', 0, handle)
        event = await host.next_event(code=0x3E)
        assert event == bytes([0x04, 0x3E, 0x0B, 0x07]) + struct.pack('<HHHHH', handle, 251, 2120, 251, 2120)

        event = await host.command(0x2032, struct.pack('<HBBBH', handle, 0, 0x02, 0x02, 0))
        assert event[1:4] == bytes([0x0F, 0x04, 0x00])
        event = await host.next_event(code=0x3E)
        assert event == bytes([0x04, 0x3E, 0x06, 0x0C, 0x00]) + struct.pack('<HBB', handle, 2, 2)

        # Local disconnect: 0x16 to the initiator, the command's reason to the peer.
        peer_reason = asyncio.get_running_loop().create_future()
        connection.on('disconnection', lambda r: peer_reason.done() or peer_reason.set_result(r))
        event = await host.command(0x0406, struct.pack('<HB', handle, 0x13))
        assert event[1:4] == bytes([0x0F, 0x04, 0x00])
        event = await host.next_event(code=0x05)
        assert event == bytes([0x04, 0x05, 0x04, 0x00]) + struct.pack('<HB', handle, 0x16)
        assert await asyncio.wait_for(peer_reason, 5) == 0x13
        assert harness.controller.violations == []
    finally:
        await host.close()


async def test_event_masks_are_applied(harness: HarnessServer, central):
    host = await RawHost.connect(harness.port)
    try:
        await host.start_advertising(ADV, SCAN_RSP)
        # LE Meta masked out (bit 61 clear): no LE Connection Complete arrives.
        await host.command_ok(0x0C01, (0x1FFFFFFFFFFF).to_bytes(8, 'little'))
        record = await central.scan_for(RANDOM_STATIC_TEXT)
        await central.connect(record.address)
        try:
            event = await host.next_event(timeout=0.5, code=0x3E)
        except asyncio.TimeoutError:
            event = None
        assert event is None
    finally:
        await host.close()


async def test_one_host_at_a_time_and_reset_on_drop(harness: HarnessServer, central):
    first = await RawHost.connect(harness.port)
    try:
        await first.start_advertising(ADV, SCAN_RSP)
        second = await RawHost.connect(harness.port)
        # The second host is refused (closed) and the first keeps working.
        await asyncio.wait_for(second._task, 2)
        assert harness.refused_connections == 1
        await first.command_ok(0x1001)  # Read Local Version Information
        assert harness.controller.advertising_enabled
    finally:
        await first.close()
    await harness.wait_host_gone(2)
    assert not harness.controller.advertising_enabled
    # A new host gets a fresh parser: a partial packet from before is gone.
    third = await RawHost.connect(harness.port)
    try:
        third.send(b'\x01\x03')  # half a command ...
        await third.close()
        await harness.wait_host_gone(2)
        fourth = await RawHost.connect(harness.port)
        await fourth.command_ok(0x0C03)
        await fourth.close()
    finally:
        await third.close()


async def test_credit_pacing_hook(harness: HarnessServer, central):
    host = await RawHost.connect(harness.port)
    try:
        await host.start_advertising(ADV, SCAN_RSP)
        record = await central.scan_for(RANDOM_STATIC_TEXT)
        await central.connect(record.address)
        complete = await host.next_event(code=0x3E)
        handle = struct.unpack_from('<H', complete, 5)[0]
        harness.controller.hold_completions = True
        # Two single-fragment L2CAP PDUs on the ATT channel (ATT MTU request).
        pdu = struct.pack('<HH', 3, 0x0004) + bytes([0x02, 0x17, 0x00])
        for _ in range(2):
            host.send(struct.pack('<BHH', 0x02, handle | (0x0 << 12), len(pdu)) + pdu)
        try:
            await host.next_event(timeout=0.3, code=0x13)
            raise AssertionError('Number Of Completed Packets was not held')
        except asyncio.TimeoutError:
            pass
        assert harness.controller.release_completions() == 2
        event = await host.next_event(code=0x13)
        assert event == bytes([0x04, 0x13, 0x05, 0x01]) + struct.pack('<HH', handle, 2)
    finally:
        await host.close()


async def test_secure_central_pairs_then_re_encrypts_from_a_new_rpa(harness: HarnessServer, central):
    """harness.security against Bumble's own peripheral SMP: the central pairs from one
    resolvable private address, then re-encrypts from another with the stored keys and no
    SMP PDU, which is what test_security.py asserts of blesensord."""
    from bumble.keys import MemoryKeyStore

    from harness.security import RecordingDelegate, SecureCentral

    transport, peer = await bumble_peripheral(harness.port)
    try:
        peer.keystore = MemoryKeyStore()
        peer.irk = bytes(range(16))
        # Its identity is the address it advertises with (else the central files the keys
        # under the controller's public address and never finds them).
        peer.config.identity_address_type = hci.Address.RANDOM_DEVICE_ADDRESS
        secure = SecureCentral(central, identity='public')
        first = await secure.use_resolvable_private_address()
        peer_paired = asyncio.get_running_loop().create_future()
        peer.on('connection', lambda c: c.on('pairing', lambda _keys: peer_paired.done() or peer_paired.set_result(c)))

        async def advertise() -> None:
            since = len(harness.controller.commands)
            await peer.start_advertising(advertising_data=ADV, own_address_type=hci.OwnAddressType.RANDOM)
            await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True, since), 5)

        await advertise()
        record = await central.scan_for(PERIPHERAL_ADDRESS, with_scan_response=False)
        connection = await central.connect(record.address)
        delegate = secure.use(RecordingDelegate())
        await secure.pair(connection)
        await asyncio.wait_for(peer_paired, 5)  # the responder stores its keys last
        assert connection.is_encrypted and delegate.asked('confirm'), delegate.calls
        assert [r.direction for r in secure.smp_on(connection)][:2] == ['tx', 'rx']
        # The peripheral bonded the central's public identity, not the RPA it saw.
        stored = [name for name, _ in await peer.keystore.get_all()]
        assert stored == [str(secure.device.public_address)], (stored, first)
        gone = asyncio.get_running_loop().create_future()
        connection.on('disconnection', lambda r: gone.done() or gone.set_result(r))
        await central.disconnect(connection)
        await asyncio.wait_for(gone, 5)

        second = await secure.use_resolvable_private_address()
        assert second != first and second.is_resolvable
        await advertise()
        record = await central.scan_for(PERIPHERAL_ADDRESS, with_scan_response=False)
        connection = await central.connect(record.address)
        assert connection.self_address == second
        delegate = secure.use(RecordingDelegate())
        await secure.encrypt(connection)
        assert connection.is_encrypted
        assert secure.smp_on(connection) == [] and delegate.calls == []
        assert harness.controller.violations == [] and central.controller.violations == []
    finally:
        await peer.power_off()
        await transport.close()
