"""Pairing and bonding on the Bumble central: a pairing delegate that records what it
was asked, a tap on the central's SMP traffic, a key store that outlives connections
(and daemon restarts), resolvable private addresses from the central's IRK, the daemon
with a state directory that restarts keep (`Bridge`), connecting to it, and the
`blesensor` CLI over the daemon's control socket."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import secrets
import signal
from pathlib import Path

from bumble import hci, smp
from bumble.core import ProtocolError
from bumble.device import Connection, Peer
from bumble.keys import MemoryKeyStore, PairingKeys
from bumble.pairing import PairingConfig, PairingDelegate

from .central import Central
from .daemon import Daemon
from .gatt import ClientTap, Session
from .cli import run_cli

IO = PairingDelegate.IoCapability

SECURITY_CONFIG = Path(__file__).parent.parent / 'configs' / 'security.yaml'


# -- the daemon's configuration -------------------------------------------------------------

def security_config(directory: Path, name: str = 'security.yaml', base: Path = SECURITY_CONFIG,
                    **settings: str) -> Path:
    """configs/security.yaml (or `base`) with some `security:` settings changed, written to
    `directory`. Keys use Python spelling (secure_connections_only=...), values are YAML text."""
    text = base.read_text()
    for key, value in settings.items():
        pattern = re.compile(rf'^(  {re.escape(key.replace("_", "-"))}:) .*$', re.MULTILINE)
        text, count = pattern.subn(lambda m: f'{m.group(1)} {value}', text)
        # A misspelt key would otherwise leave the default silently in place.
        assert count == 1, f'security.{key} is not in {base}'
    path = directory / name
    path.write_text(text)
    return path


# -- the central's side of pairing ------------------------------------------------------------

class RecordingDelegate(PairingDelegate):
    """Bumble's user: answers with what the test says and records every question, so a test
    can tell which pairing method ran and that no pairing ran at all."""

    def __init__(self, io_capability: int = IO.NO_OUTPUT_NO_INPUT, passkey: int | None = None,
                 confirm: bool = True) -> None:
        super().__init__(io_capability=io_capability)
        self.passkey = passkey
        self.answer = confirm
        self.calls: list[tuple] = []

    async def accept(self) -> bool:
        self.calls.append(('accept',))
        return True

    async def confirm(self, auto: bool = False) -> bool:
        self.calls.append(('confirm', auto))
        return self.answer

    async def compare_numbers(self, number: int, digits: int) -> bool:
        self.calls.append(('compare', number))
        return self.answer

    async def get_number(self) -> int | None:
        self.calls.append(('passkey-asked',))
        return self.passkey

    async def display_number(self, number: int, digits: int) -> None:
        self.calls.append(('display', number))

    def asked(self, kind: str) -> list[tuple]:
        return [call for call in self.calls if call[0] == kind]


@dataclasses.dataclass
class SmpRecord:
    direction: str  # 'rx' (from the peripheral) or 'tx'
    # The connection itself: controllers reuse handles, so a handle does not tell links apart.
    connection: Connection
    command: smp.SMP_Command


class SecureCentral:
    """A harness Central that pairs: its keys in a memory key store kept across
    connections, its own IRK, its SMP traffic recorded."""

    def __init__(self, central: Central, identity: str = 'random') -> None:
        self.central = central
        self.device = central.device
        self.device.keystore = MemoryKeyStore()
        # Bumble's default IRK is all zeros, which no real central distributes.
        self.device.irk = secrets.token_bytes(16)
        # 'random': the static address the central connects with is its identity (as a
        # Bumble or embedded central); 'public': the controller's public address, while
        # connecting with private addresses (as a phone).
        self.identity_type = (PairingConfig.AddressType.RANDOM if identity == 'random'
                              else PairingConfig.AddressType.PUBLIC)
        self.delegate = RecordingDelegate()
        self.sc, self.mitm = True, False
        self.device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=self.sc, mitm=self.mitm, bonding=True, delegate=self.delegate,
            identity_address_type=self.identity_type)
        self.smp: list[SmpRecord] = []
        manager = self.device.smp_manager
        receive, send = manager.on_smp_pdu, manager.send_command

        def tapped_receive(connection: Connection, pdu: bytes) -> None:
            self.smp.append(SmpRecord('rx', connection, smp.SMP_Command.from_bytes(pdu)))
            receive(connection, pdu)

        def tapped_send(connection: Connection, command: smp.SMP_Command) -> None:
            self.smp.append(SmpRecord('tx', connection, command))
            send(connection, command)

        manager.on_smp_pdu = tapped_receive  # type: ignore[method-assign]
        manager.send_command = tapped_send  # type: ignore[method-assign]

    @property
    def address(self) -> str:
        return self.central.address

    def use(self, delegate: RecordingDelegate, sc: bool = True, mitm: bool | None = None) -> RecordingDelegate:
        """The delegate and AuthReq of the next pairing (MITM asked for unless the central
        has neither display nor keyboard)."""
        self.delegate = delegate
        self.sc = sc
        self.mitm = delegate.io_capability != IO.NO_OUTPUT_NO_INPUT if mitm is None else mitm
        return delegate

    def smp_on(self, connection: Connection) -> list[SmpRecord]:
        return [record for record in self.smp if record.connection is connection]

    async def pair(self, connection: Connection, timeout: float = 10.0) -> None:
        await asyncio.wait_for(connection.pair(), timeout)

    async def pairing_failure(self, connection: Connection, timeout: float = 10.0) -> int:
        """Pairs, expecting Pairing Failed; returns its reason."""
        try:
            await asyncio.wait_for(connection.pair(), timeout)
        except ProtocolError as error:
            assert error.error_namespace == 'smp', f'not an SMP failure: {error}'
            return error.error_code
        raise AssertionError('pairing succeeded; Pairing Failed was expected')

    async def encrypt(self, connection: Connection, timeout: float = 5.0) -> None:
        """Starts encryption with the stored LTK (no pairing)."""
        await asyncio.wait_for(connection.encrypt(), timeout)

    async def encryption_failure(self, connection: Connection, timeout: float = 5.0) -> int:
        """Starts encryption expecting the peripheral to have no key; returns the HCI status."""
        try:
            await asyncio.wait_for(connection.encrypt(), timeout)
        except hci.HCI_Error as error:
            return error.error_code
        raise AssertionError('encryption succeeded; the peripheral was expected to have no key')

    async def keys_for(self, address: hci.Address) -> PairingKeys | None:
        return await self.device.keystore.get(str(address))

    def forget_keys(self) -> None:
        """As a phone whose user chose "forget this device"."""
        self.device.keystore = MemoryKeyStore()

    async def use_static_address(self, text: str) -> hci.Address:
        """A new random static address to connect with: a guesser rotating its identity."""
        address = hci.Address(text, hci.Address.RANDOM_DEVICE_ADDRESS)
        await self.device.send_sync_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))
        self.device.random_address = address
        self.device.static_address = address
        self.central.address = address.to_string(with_type_qualifier=False)
        return address

    async def use_resolvable_private_address(self) -> hci.Address:
        """A fresh RPA from our IRK as the address we connect with (a phone rotates it)."""
        address = hci.Address.generate_private_address(self.device.irk)
        assert address.is_resolvable, address
        await self.device.send_sync_command(hci.HCI_LE_Set_Random_Address_Command(random_address=address))
        self.device.random_address = address
        self.central.address = address.to_string(with_type_qualifier=False)
        return address


# -- the daemon with a state directory, and a central connecting to it -------------------------

class Bridge:
    """blesensord with a security configuration (configs/security.yaml, or `base`, with some
    `security:` settings changed) and a state directory of its own, which a restart keeps
    (same bonds, same random static address, same stored measurements)."""

    def __init__(self, harness, spawn_daemon, tmp_path: Path, name: str, base: Path = SECURITY_CONFIG,
                 **security: str) -> None:
        self.harness, self.spawn_daemon, self.name = harness, spawn_daemon, name
        self.state_dir = tmp_path / 'state'
        self.extra = ('--config', str(security_config(tmp_path, base=base, **security)),
                      '--state-dir', str(self.state_dir))
        self.daemon: Daemon | None = None

    async def start(self) -> Daemon:
        since = len(self.harness.controller.commands)
        self.daemon = await self.spawn_daemon(self.harness.port, self.name, *self.extra)
        await asyncio.wait_for(self.harness.controller.wait_for_advertising_enable(True, since), 10)
        await self.daemon.wait_for_log('advertising enabled', timeout=5)
        return self.daemon

    async def restart(self, *connections: Connection) -> Daemon:
        """SIGTERM, wait until it exited and the centrals saw their links go, start again."""
        gone = [disconnection(c) for c in connections]
        self.daemon.send_signal(signal.SIGTERM)
        assert await self.daemon.wait_exit(10) == 0, self.daemon.log
        await asyncio.wait_for(asyncio.gather(*gone), 5)
        await self.harness.wait_host_gone(5)
        return await self.start()


def disconnection(connection: Connection) -> asyncio.Future:
    """Resolved with the reason when the link goes; registered at once, so nothing is missed."""
    future = asyncio.get_running_loop().create_future()

    def on_disconnection(reason: int) -> None:
        if not future.done():
            future.set_result(reason)

    connection.on('disconnection', on_disconnection)
    return future


async def connect(secure: SecureCentral, daemon: Daemon) -> Session:
    """Scan, connect, wait for the daemon's connection line, discover the database."""
    central = secure.central
    seen = daemon.count(f'peer {central.address}')
    record = await central.scan_for(None, timeout=5)
    connection = await central.connect(record.address, timeout=5)
    # "central connected: link#N handle H peripheral peer ADDRESS (type) ..."
    await daemon.wait_for_log(f'peer {central.address}', timeout=5, occurrences=seen + 1)
    peer = Peer(connection)
    session = Session(central, record, connection, peer, ClientTap(peer.gatt_client))
    await session.discover()
    return session


async def pair_and_wait_stored(secure: SecureCentral, session: Session, daemon: Daemon) -> None:
    """Pairs, then waits until the daemon has stored the bond. It logs "paired …, bonded" after the
    SQLite write, which on a busy machine comes well after the link is encrypted, so a status read
    at once could still say `bonded: false`."""
    before = daemon.count(', bonded')
    await secure.pair(session.connection)
    await daemon.wait_for_log(', bonded', timeout=30, occurrences=before + 1)


async def disconnect(session: Session) -> None:
    gone = disconnection(session.connection)
    await session.central.disconnect(session.connection)
    await asyncio.wait_for(gone, 5)


async def re_encrypt_without_pairing(secure: SecureCentral, session: Session) -> None:
    """The stored LTK encrypts the link: no SMP PDU either way, no question to the user."""
    delegate = secure.use(RecordingDelegate())
    await secure.encrypt(session.connection)
    assert session.connection.is_encrypted
    assert secure.smp_on(session.connection) == [], [str(r.command) for r in secure.smp_on(session.connection)]
    assert delegate.calls == []


# -- blesensor CLI ---------------------------------------------------------------------------



async def cli_json(daemon, *args: str) -> object:
    code, out, err = await run_cli(*args, '--json', '--socket', daemon.control_socket)
    assert code == 0, (args, code, out, err)
    return json.loads(out)
