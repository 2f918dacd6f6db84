"""A Bumble peripheral on the harness link, for testing our central (`blesensor scan`,
`explore`, `read`, `write`, `subscribe`, pairing) through the harness controller.

The peripheral is a Bumble Device with its own HarnessController on the same virtual
link as the harness server; the host under test reaches it through the server's
controller over H4/TCP. It advertises with a random static address, an advertising
payload and a scan response of different content (so a scanner that merged them
shows fields found only in the scan response), and serves a GATT database with
short, long, encrypted, indicate-only and write-without-response characteristics.
It records what it was asked (ATT requests, writes, pairings, encryptions) and can
be told to answer ATT requests with raw bytes of the test's choosing."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import Callable

from bumble import att, hci, smp
from bumble.core import UUID
from bumble.device import Connection, Device
from bumble.gatt import Characteristic, CharacteristicValue, Descriptor, Service
from bumble.host import Host
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig

from .controller import HarnessController, HarnessLink
from .security import IO, RecordingDelegate

ADDRESS = 'F0:F1:F2:F3:F4:F5'
NAME = 'bumble-peri'
PASSKEY = 123456  # the fixed passkey the tests know


def u16(value: int) -> UUID:
    return UUID.from_16_bits(value)


# -- GATT identifiers ------------------------------------------------------------------------

BATTERY_SERVICE, BATTERY_LEVEL = u16(0x180F), u16(0x2A19)
HEART_RATE_SERVICE, HRM, BODY_SENSOR_LOCATION = u16(0x180D), u16(0x2A37), u16(0x2A38)
SERVICE_CHANGED = u16(0x2A05)
USER_DESCRIPTION, CCCD = u16(0x2901), u16(0x2902)


def custom(n: int) -> UUID:
    return UUID(f'6E40{n:04X}-B5A3-F393-E0A9-E50E24DCCA9E')


CUSTOM_SERVICE = custom(0x0001)
LONG_READ = custom(0x0002)  # 300 bytes, read in blobs
LONG_WRITE = custom(0x0003)  # 200 bytes written with Prepare/Execute Write, read back
WRITE_NO_RESPONSE = custom(0x0004)  # Write Command only; every write recorded in order
INDICATE_ONLY = custom(0x0005)
ENCRYPTED = custom(0x0006)  # readable on an encrypted link only
AUTHENTICATED = custom(0x0007)  # readable on a link encrypted with an MITM-protected key
RUNTIME_SERVICE = custom(0x0100)  # added while connected, then Service Changed
RUNTIME_CHARACTERISTIC = custom(0x0101)

LONG_READ_VALUE = bytes((i * 7 + 3) & 0xFF for i in range(300))
LONG_WRITE_INITIAL = bytes(200)
BATTERY_VALUE = bytes([100])
HRM_VALUE = bytes([0x06, 0x48])  # flags: sensor contact; 72 bpm
LOCATION_VALUE = bytes([0x01])  # chest
ENCRYPTED_VALUE = b'secret'
AUTHENTICATED_VALUE = b'mitm-secret'
USER_DESCRIPTION_VALUE = b'long value'


def uuid_text(uuid: UUID) -> str:
    """As the contract prints UUIDs: 4 (or 8) hex digits for SIG ones, else 36 upper case."""
    return uuid.to_hex_str('-').upper()


# -- advertising: the contract's example device ------------------------------------------------

def ad(kind: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, kind]) + payload


FLAGS = 0x06
COMPANY, MANUFACTURER_DATA = 1521, bytes([0x01, 0x02])
TX_POWER, APPEARANCE = 4, 832
# Advertising data: flags, 16-bit UUID, service data, manufacturer data, TX power, appearance.
ADVERTISING_DATA = (
    ad(0x01, bytes([FLAGS]))
    + ad(0x03, struct.pack('<H', 0x180D))
    + ad(0x16, struct.pack('<H', 0x180F) + BATTERY_VALUE)
    + ad(0xFF, struct.pack('<H', COMPANY) + MANUFACTURER_DATA)
    + ad(0x0A, struct.pack('<b', TX_POWER))
    + ad(0x19, struct.pack('<H', APPEARANCE))
)
# Scan response: only the complete local name and the 128-bit UUID, so both prove a merge.
SCAN_RESPONSE_DATA = ad(0x09, NAME.encode()) + ad(0x07, CUSTOM_SERVICE.to_bytes())
assert len(ADVERTISING_DATA) <= 31 and len(SCAN_RESPONSE_DATA) <= 31


def scan_data(name: str, services16: tuple[int, ...] = ()) -> tuple[bytes, bytes]:
    """Advertising data of another, simpler device (a scan filter has something to drop)."""
    data = ad(0x01, bytes([FLAGS]))
    if services16:
        data += ad(0x03, b''.join(struct.pack('<H', s) for s in services16))
    return data, ad(0x09, name.encode())


class PeripheralDelegate(RecordingDelegate):
    """Bumble's user on the peripheral: shows or types the fixed passkey, confirms numbers,
    records every question (so a test can tell which pairing method ran)."""

    def __init__(self, io_capability: int, passkey: int = PASSKEY, confirm: bool = True) -> None:
        super().__init__(io_capability=io_capability, passkey=passkey, confirm=confirm)

    async def generate_passkey(self) -> int:
        self.calls.append(('generated', self.passkey))
        return self.passkey


class Peripheral:
    """See module docstring. `start()` powers on, builds the database and advertises
    (advertising restarts after each disconnection, so runs can follow one another)."""

    def __init__(self, link: HarnessLink, address: str = ADDRESS,
                 public_address: str = '00:1B:DC:F0:00:E1', name: str = NAME,
                 controller_name: str = 'peripheral-controller') -> None:
        self.address = address
        self.controller = HarnessController(controller_name, link=link, public_address=public_address)
        host = Host(controller_source=self.controller, controller_sink=self.controller)
        self.device = Device(name=name, address=hci.Address(address), host=host)
        # Kept across connections: a second run re-encrypts with what the first stored.
        self.device.keystore = MemoryKeyStore()
        self.delegate = PeripheralDelegate(IO.NO_OUTPUT_NO_INPUT)
        self.sc, self.mitm, self.bonding = True, False, True
        self.device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=self.sc, mitm=self.mitm, bonding=self.bonding, delegate=self.delegate,
            identity_address_type=PairingConfig.AddressType.RANDOM)

        self.connections: list[Connection] = []
        self.disconnections: list[tuple[Connection, int]] = []
        self.pairings: list[tuple[Connection, object]] = []  # (connection, keys)
        self.pairing_failures: list[tuple[Connection, int]] = []
        self.encryptions: list[Connection] = []  # each encryption change to "on"
        self.smp_received: list[smp.SMP_Command] = []
        self.requests: list[bytes] = []  # every ATT PDU from the client, raw, in order
        self.wwr_values: list[bytes] = []  # every write to WRITE_NO_RESPONSE, in order
        self.long_write_value = LONG_WRITE_INITIAL
        # A test's raw ATT responder: given a request's bytes, the bytes to answer
        # instead of the server (or None: let the server answer).
        self.att_override: Callable[[bytes], bytes | None] | None = None
        self._changed = asyncio.Event()

        self._build_database()
        self.device.on('connection', self._on_connection)
        self._tap_att()
        self._tap_smp()

    # -- database --------------------------------------------------------------------------
    def _build_database(self) -> None:
        readable, writable = Characteristic.Permissions.READABLE, Characteristic.Permissions.WRITEABLE
        P = Characteristic.Properties
        self.battery = Characteristic(BATTERY_LEVEL, P.READ | P.NOTIFY, readable, BATTERY_VALUE)
        self.battery_service = Service(BATTERY_SERVICE, [self.battery])
        self.hrm = Characteristic(HRM, P.NOTIFY, readable, HRM_VALUE)
        self.location = Characteristic(BODY_SENSOR_LOCATION, P.READ, readable, LOCATION_VALUE)
        # Heart Rate includes Battery: explore must show the included service.
        self.heart_rate_service = Service(HEART_RATE_SERVICE, [self.hrm, self.location],
                                          included_services=[self.battery_service])
        self.long_read = Characteristic(
            LONG_READ, P.READ, readable, LONG_READ_VALUE,
            descriptors=[Descriptor(USER_DESCRIPTION, readable, USER_DESCRIPTION_VALUE)])
        self.long_write = Characteristic(
            LONG_WRITE, P.READ | P.WRITE, readable | writable,
            CharacteristicValue(read=lambda _c: self.long_write_value, write=self._on_long_write))
        self.write_no_response = Characteristic(
            WRITE_NO_RESPONSE, P.WRITE_WITHOUT_RESPONSE, writable,
            CharacteristicValue(write=self._on_write_no_response))
        self.indicate_only = Characteristic(INDICATE_ONLY, P.INDICATE, readable, b'\x00')
        self.encrypted = Characteristic(
            ENCRYPTED, P.READ, readable,
            CharacteristicValue(read=lambda c: self._secured(c, ENCRYPTED_VALUE, mitm=False)))
        self.authenticated = Characteristic(
            AUTHENTICATED, P.READ, readable,
            CharacteristicValue(read=lambda c: self._secured(c, AUTHENTICATED_VALUE, mitm=True)))
        self.custom_service = Service(CUSTOM_SERVICE, [
            self.long_read, self.long_write, self.write_no_response, self.indicate_only,
            self.encrypted, self.authenticated])
        self.device.add_services([self.battery_service, self.heart_rate_service, self.custom_service])

    @staticmethod
    def _secured(connection: Connection, value: bytes, mitm: bool) -> bytes:
        # As a real peripheral does (Core Vol 3, Part C, 10.3.1): without an LTK the answer
        # is Insufficient Authentication, not Insufficient Encryption (Bumble's permission
        # check would say 0x0F); an unauthenticated key is not enough where MITM is required.
        if not connection.is_encrypted or (mitm and not Peripheral._key_is_authenticated(connection)):
            raise att.ATT_Error(att.ErrorCode.INSUFFICIENT_AUTHENTICATION)
        return value

    @staticmethod
    def _key_is_authenticated(connection: Connection) -> bool:
        # Bumble sets `connection.authenticated` after any pairing, Just Works included; what
        # matters is whether the key in use came from an MITM-protected method (only keys paired on
        # this connection are known here, so a re-encrypted link never reads the MITM value).
        keys = getattr(connection, 'blesensor_keys', None)
        ltk = getattr(keys, 'ltk', None) or getattr(keys, 'ltk_peripheral', None)
        return bool(ltk is not None and ltk.authenticated)

    def _on_long_write(self, _connection: Connection, value: bytes) -> None:
        self.long_write_value = bytes(value)
        self._changed.set()

    def _on_write_no_response(self, _connection: Connection, value: bytes) -> None:
        self.wwr_values.append(bytes(value))
        self._changed.set()

    def limit_mtu(self, mtu: int) -> None:
        """The largest ATT_MTU the server accepts (so a 200-byte write needs Prepare Write)."""
        self.device.gatt_server.max_mtu = mtu

    async def add_runtime_service(self) -> Service:
        """A new service at the end of the database (existing handles unchanged)."""
        P = Characteristic.Properties
        characteristic = Characteristic(RUNTIME_CHARACTERISTIC, P.READ,
                                        Characteristic.Permissions.READABLE, b'new')
        service = Service(RUNTIME_SERVICE, [characteristic])
        self.device.add_service(service)
        return service

    async def indicate_service_changed(self, connection: Connection, start: int, end: int,
                                       timeout: float = 5.0) -> None:
        """Service Changed to this client, whether or not it enabled the CCCD of 2A05
        (the value names the affected range); returns once it was confirmed."""
        characteristic = self.device.gatt_service.service_changed_characteristic
        await asyncio.wait_for(self.device.indicate_subscriber(
            connection, characteristic, struct.pack('<HH', start, end), force=True), timeout)

    async def notify(self, characteristic: Characteristic, value: bytes) -> None:
        """To subscribers only: a client that did not enable the CCCD gets nothing."""
        await self.device.notify_subscribers(characteristic, value)

    async def indicate(self, characteristic: Characteristic, value: bytes, timeout: float = 5.0) -> None:
        """To subscribers only; returns when every one confirmed."""
        await asyncio.wait_for(self.device.indicate_subscribers(characteristic, value), timeout)

    def subscribed(self, characteristic: Characteristic) -> bool:
        """Some client enabled notifications or indications of `characteristic`."""
        return any(subscribers.get(characteristic.handle)
                   for subscribers in self.device.gatt_server.subscribers.values())

    # -- pairing ---------------------------------------------------------------------------
    def configure_pairing(self, io_capability: int = IO.NO_OUTPUT_NO_INPUT, sc: bool = True,
                          mitm: bool | None = None, bonding: bool = True, passkey: int = PASSKEY,
                          confirm: bool = True) -> PeripheralDelegate:
        """What the next pairing offers; MITM unless the peripheral has no input or output."""
        self.delegate = PeripheralDelegate(io_capability, passkey, confirm)
        self.sc, self.bonding = sc, bonding
        self.mitm = io_capability != IO.NO_OUTPUT_NO_INPUT if mitm is None else mitm
        return self.delegate

    def pairing_requests(self) -> list[smp.SMP_Pairing_Request_Command]:
        return [c for c in self.smp_received if isinstance(c, smp.SMP_Pairing_Request_Command)]

    # -- lifecycle -------------------------------------------------------------------------
    async def start(self, advertising_data: bytes = ADVERTISING_DATA,
                    scan_response_data: bytes = SCAN_RESPONSE_DATA, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self.device.power_on(), timeout)
        await asyncio.wait_for(self.device.start_advertising(
            own_address_type=hci.OwnAddressType.RANDOM, auto_restart=True,
            advertising_data=advertising_data, scan_response_data=scan_response_data,
            advertising_interval_min=20, advertising_interval_max=20), timeout)

    @property
    def connection(self) -> Connection:
        assert self.connections, 'nobody connected to the peripheral'
        return self.connections[-1]

    def _on_connection(self, connection: Connection) -> None:
        self.connections.append(connection)

        def on_disconnection(reason: int) -> None:
            self.disconnections.append((connection, reason))
            self._changed.set()

        def on_pairing(keys) -> None:
            self.pairings.append((connection, keys))
            connection.blesensor_keys = keys
            self._changed.set()

        def on_pairing_failure(reason: int) -> None:
            self.pairing_failures.append((connection, reason))
            self._changed.set()

        def on_encryption_change() -> None:
            if connection.is_encrypted:
                self.encryptions.append(connection)
            self._changed.set()

        connection.on('disconnection', on_disconnection)
        connection.on('pairing', on_pairing)
        connection.on('pairing_failure', on_pairing_failure)
        connection.on('connection_encryption_change', on_encryption_change)
        self._changed.set()

    def _tap_att(self) -> None:
        server = self.device.gatt_server
        handle_request = server.on_gatt_pdu

        def tapped(bearer, pdu: att.ATT_PDU) -> None:
            raw = bytes(pdu)
            self.requests.append(raw)
            self._changed.set()
            answer = self.att_override(raw) if self.att_override is not None else None
            if answer is not None:
                server.send_gatt_pdu(bearer, answer)
                return
            handle_request(bearer, pdu)

        server.on_gatt_pdu = tapped  # type: ignore[method-assign]

    def _tap_smp(self) -> None:
        manager = self.device.smp_manager
        receive = manager.on_smp_pdu

        def tapped(connection: Connection, pdu: bytes) -> None:
            self.smp_received.append(smp.SMP_Command.from_bytes(pdu))
            receive(connection, pdu)

        manager.on_smp_pdu = tapped  # type: ignore[method-assign]

    def requests_with_opcode(self, opcode: int) -> list[bytes]:
        return [r for r in self.requests if r[0] == opcode]

    async def wait_for(self, condition: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
        """Until `condition()` holds after something was recorded; the timeout is a failure bound."""
        async def wait() -> None:
            while not condition():
                self._changed.clear()
                await self._changed.wait()

        try:
            await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f'peripheral: timed out after {timeout} s waiting for {what}') from None

    async def wait_connected(self, count: int = 1, timeout: float = 10.0) -> Connection:
        await self.wait_for(lambda: len(self.connections) >= count, f'connection #{count}', timeout)
        return self.connections[count - 1]

    async def wait_disconnected(self, count: int = 1, timeout: float = 10.0) -> None:
        await self.wait_for(lambda: len(self.disconnections) >= count, f'disconnection #{count}', timeout)
