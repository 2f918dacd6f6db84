"""Pairing and bonding against Bumble's SMP, an independent implementation: every pairing
method blesensord offers, bonds kept in SQLite across a restart, bond removal, a central
with resolvable private addresses, Secure Connections Only, re-pairing, and the pairing
window. The daemon runs configs/security.yaml (2A6E needs an encrypted link, 2A6F does not)
with its own state directory per test."""

from __future__ import annotations

import asyncio
import re
import struct

import pytest
from bumble import att, hci
from bumble.core import UUID

from harness.cli import cli
from harness.daemon import Daemon
from harness.gatt import Session
from harness.security import (IO, Bridge, RecordingDelegate, SecureCentral, cli_json, connect, disconnect, disconnection,
                              pair_and_wait_stored, re_encrypt_without_pairing, run_cli)

ES_TEMPERATURE, HUMIDITY = UUID.from_16_bits(0x2A6E), UUID.from_16_bits(0x2A6F)
ROOM = struct.pack('<h', 2150)  # 21.50 °C as 2A6E carries it
HUMID = struct.pack('<H', 4500)  # 45.00 %

# ATT errors (Core Vol 3 Part F 3.4.1.1) and SMP Pairing Failed reasons (Part H 3.5.5).
INSUFFICIENT_AUTHENTICATION, INSUFFICIENT_ENCRYPTION = 0x05, 0x0F
AUTHENTICATION_REQUIREMENTS, PAIRING_NOT_SUPPORTED, CONFIRM_VALUE_FAILED = 0x03, 0x05, 0x04
REPEATED_ATTEMPTS = 0x09
ENCRYPTION_KEY_SIZE = 0x06
PIN_OR_KEY_MISSING = 0x06  # HCI status of an Encryption Change the peripheral had no key for
AUTHENTICATION_FAILURE = 0x05  # HCI reason of the daemon's disconnection after a refused takeover


async def read_error(session: Session, uuid: UUID) -> int:
    return await session.att_error_of(session.client.read_value(session.characteristic(uuid).handle))


async def check_locked(session: Session, expected: int = INSUFFICIENT_AUTHENTICATION) -> None:
    """2A6E refused with `expected`, while the unprotected 2A6F still reads."""
    code = await read_error(session, ES_TEMPERATURE)
    assert code == expected, f'read of 2A6E: ATT error 0x{code:02X}, expected 0x{expected:02X}'
    assert await session.read(session.characteristic(HUMIDITY)) == HUMID


async def check_unlocked(session: Session) -> None:
    assert session.connection.is_encrypted
    assert await session.read(session.characteristic(ES_TEMPERATURE)) == ROOM


async def bonds(daemon: Daemon) -> list[dict]:
    """`blesensor bonds list --json`: {"bonds": [{"address", "addressType", "keySize", ...}]}."""
    document = await cli_json(daemon, 'bonds', 'list')
    assert isinstance(document, dict) and isinstance(document.get('bonds'), list), document
    return document['bonds']


async def bond(daemon: Daemon, address: str) -> dict:
    found = [entry for entry in await bonds(daemon) if entry['address'].upper() == address.upper()]
    assert len(found) == 1, (address, await bonds(daemon))
    return found[0]


def bonded_addresses(listed: list[dict]) -> set[str]:
    return {entry['address'].upper() for entry in listed}


async def central_status(daemon: Daemon, *addresses: str) -> dict:
    """The `status --json` entry of the central connected with (or identified by) an address."""
    snapshot = await cli_json(daemon, 'status')
    wanted = {address.upper() for address in addresses}
    found = [c for c in snapshot['centrals'] if c['address'].upper() in wanted]
    assert len(found) == 1, (addresses, snapshot['centrals'])
    return found[0]


# -- 1. every pairing method ------------------------------------------------------------------

# daemon settings, Bumble's IO capability and SC flag, the passkey it types, what Bumble's
# user is asked, and the security level the daemon reports (the bond is authenticated only when a
# person took part on the daemon's side too: typed our passkey, or compared through confirm-command;
# a comparison accepted with no one looking is worth Just Works). CONFIRM_SCRIPT becomes a script
# that says yes.
CONFIRM_SCRIPT = 'CONFIRM_SCRIPT'
METHODS = {
    'lesc-just-works': ({}, IO.NO_OUTPUT_NO_INPUT, True, None, {'confirm'}, 'unauthenticated'),
    'lesc-passkey': ({'io_capability': 'display-only', 'passkey': '123456'}, IO.KEYBOARD_INPUT_ONLY, True, 123456,
                     {'passkey-asked'}, 'authenticated-secure-connections'),
    'lesc-numeric-comparison': ({'io_capability': 'display-yes-no'}, IO.DISPLAY_OUTPUT_AND_YES_NO_INPUT, True, None,
                                {'compare'}, 'unauthenticated'),
    'lesc-numeric-comparison-keyboard-display': ({'io_capability': 'keyboard-display'}, IO.DISPLAY_OUTPUT_AND_KEYBOARD_INPUT,
                                                 True, None, {'compare'}, 'unauthenticated'),
    'lesc-numeric-comparison-confirmed': ({'io_capability': 'display-yes-no', 'confirm_command': CONFIRM_SCRIPT},
                                          IO.DISPLAY_OUTPUT_AND_YES_NO_INPUT, True, None, {'compare'}, 'authenticated-secure-connections'),
    'legacy-just-works': ({}, IO.NO_OUTPUT_NO_INPUT, False, None, set(), 'unauthenticated'),
    'legacy-passkey': ({'io_capability': 'display-only', 'passkey': '123456'}, IO.KEYBOARD_INPUT_ONLY, False, 123456,
                       {'passkey-asked'}, 'authenticated'),
}


@pytest.mark.parametrize('method', METHODS)
async def test_pairing_method_encrypts_and_unlocks_the_protected_characteristic(
        harness, central, spawn_daemon, tmp_path, method):
    settings, io, sc, passkey, asked, level = METHODS[method]
    answered = tmp_path / 'confirm-command-asked'
    if settings.get('confirm_command') == CONFIRM_SCRIPT:
        script = tmp_path / 'confirm-yes'
        script.write_text(f'#!/bin/sh\necho "$1 $2" > {answered}\n')
        script.chmod(0o755)
        settings = {**settings, 'confirm_command': str(script)}
    daemon = await Bridge(harness, spawn_daemon, tmp_path, f'sec-{method}', **settings).start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await check_locked(session)

    delegate = secure.use(RecordingDelegate(io, passkey=passkey), sc=sc)
    await pair_and_wait_stored(secure, session, daemon)
    assert {call[0] for call in delegate.calls} - {'accept'} == asked, delegate.calls
    assert session.connection.is_encrypted
    if 'compare' in asked:
        # Both sides computed the same six digits: the daemon logs the number it confirmed.
        (_, number), = delegate.asked('compare')
        await daemon.wait_for_log(f'numeric comparison: {number:06d}', timeout=2)
        if 'confirm_command' in settings:
            # The person was asked about the very number Bumble's user saw.
            assert answered.read_text().split()[0] == f'{number:06d}'
        else:
            await daemon.wait_for_log(f'numeric comparison {number:06d} accepted with no one comparing', timeout=2)
    await check_unlocked(session)

    # Bumble kept the keys the method yields: the LTK (SC) or ours with EDIV and Rand (legacy).
    keys = await secure.keys_for(session.connection.peer_address)
    assert keys is not None, 'Bumble stored no keys for the daemon'
    assert (keys.ltk if sc else keys.ltk_central) is not None, keys.to_dict()
    entry = await central_status(daemon, secure.address)
    assert entry['bonded'] is True and entry['securityLevel'] == level, entry
    stored = await bond(daemon, secure.address)
    assert stored['addressType'] == 'random' and stored['keySize'] == 16, stored
    assert stored['authenticated'] == (level != 'unauthenticated') and stored['secureConnections'] == sc, stored
    assert stored['hasIRK'] is True and stored['connected'] is True, stored


# -- 2. bonds survive a restart -------------------------------------------------------------

async def test_a_bonded_central_re_encrypts_after_a_restart_without_pairing_again(
        harness, central, spawn_daemon, tmp_path):
    bridge = Bridge(harness, spawn_daemon, tmp_path, 'sec-restart')
    daemon = await bridge.start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    await check_unlocked(session)

    daemon = await bridge.restart(session.connection)
    assert secure.address.upper() in bonded_addresses(await bonds(daemon))
    assert (await cli_json(daemon, 'status'))['bonds'] == [f'{secure.address} (random)']
    session = await connect(secure, daemon)
    # Known from SQLite before any key is used: bonded but not encrypted yet.
    await check_locked(session, INSUFFICIENT_ENCRYPTION)
    await re_encrypt_without_pairing(secure, session)
    await check_unlocked(session)
    entry = await central_status(daemon, secure.address)
    assert entry['bonded'] is True and entry['securityLevel'] == 'unauthenticated', entry


async def test_notifications_resume_after_a_restart_without_writing_the_cccd(
        harness, central, spawn_daemon, tmp_path):
    bridge = Bridge(harness, spawn_daemon, tmp_path, 'sec-resume')
    daemon = await bridge.start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    for uuid, label in ((ES_TEMPERATURE, '2A6E'), (HUMIDITY, '2A6F')):
        await asyncio.wait_for(session.peer.subscribe(session.characteristic(uuid), lambda _v: None), 5)
        await daemon.wait_for_log(f'subscribed {secure.address} {label} notify', timeout=5)
    notified = session.tap.notifications
    handles = [session.characteristic(uuid).handle for uuid in (ES_TEMPERATURE, HUMIDITY)]
    await session.tap.wait_for(lambda: all(notified[h] for h in handles), 5, 'a 2A6E and a 2A6F notification')

    daemon = await bridge.restart(session.connection)
    session = await connect(secure, daemon)
    notified = session.tap.notifications
    temperature, humidity = (session.characteristic(uuid).handle for uuid in (ES_TEMPERATURE, HUMIDITY))
    # The daemon restores a bonded central's subscriptions once the bond's key encrypts the
    # link (an address alone proves nothing), then both resume.
    await re_encrypt_without_pairing(secure, session)
    await session.tap.wait_for(lambda: len(notified[temperature]) >= 2 and len(notified[humidity]) >= 2, 5,
                               '2A6E and 2A6F notifications on the stored subscriptions')
    assert set(notified[temperature]) == {ROOM} and set(notified[humidity]) == {HUMID}
    written = [op for op in session.tap.sent_opcodes
               if op in (att.Opcode.ATT_WRITE_REQUEST, att.Opcode.ATT_WRITE_COMMAND)]
    assert written == [], 'the central wrote something (a CCCD) after reconnecting'


# -- 3. a removed bond --------------------------------------------------------------------------

async def test_a_removed_bond_no_longer_encrypts_and_the_central_pairs_again(
        harness, central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-remove').start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    await disconnect(session)

    code, out, err = await run_cli('bonds', 'remove', secure.address, '--socket', daemon.control_socket)
    assert code == 0, (code, out, err)
    assert secure.address.upper() not in bonded_addresses(await bonds(daemon))

    session = await connect(secure, daemon)
    await check_locked(session, INSUFFICIENT_AUTHENTICATION)  # a stranger again
    status = await secure.encryption_failure(session.connection)
    assert status == PIN_OR_KEY_MISSING, f'Encryption Change status 0x{status:02X}'
    assert not session.connection.is_encrypted

    delegate = secure.use(RecordingDelegate())
    await pair_and_wait_stored(secure, session, daemon)
    assert delegate.asked('confirm'), delegate.calls
    await check_unlocked(session)
    assert secure.address.upper() in bonded_addresses(await bonds(daemon))


# -- 4. a central with resolvable private addresses ----------------------------------------

async def test_a_central_using_resolvable_private_addresses_is_recognised_by_its_irk(
        harness, central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-rpa').start()
    secure = SecureCentral(central, identity='public')  # as a phone: public identity, RPAs on air
    first = await secure.use_resolvable_private_address()
    session = await connect(secure, daemon)
    await check_locked(session)
    await pair_and_wait_stored(secure, session, daemon)
    await check_unlocked(session)
    # Filed under the identity the central distributed, not the RPA it paired from.
    identity = secure.device.public_address.to_string(with_type_qualifier=False)
    assert bonded_addresses(await bonds(daemon)) == {identity.upper()}, (identity, first)
    stored = await bond(daemon, identity)
    assert stored['addressType'] == 'public' and stored['hasIRK'] is True, stored
    await disconnect(session)

    second = await secure.use_resolvable_private_address()
    assert second != first
    session = await connect(secure, daemon)
    # The bond is found from the new RPA before any key is used.
    await check_locked(session, INSUFFICIENT_ENCRYPTION)
    await re_encrypt_without_pairing(secure, session)
    await check_unlocked(session)
    assert (await central_status(daemon, secure.address, identity))['bonded'] is True


# -- 5. Secure Connections Only -----------------------------------------------------------------

async def test_secure_connections_only_refuses_legacy_pairing(
        harness, central, second_central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-sc-only', secure_connections_only='true').start()
    legacy = SecureCentral(central)
    session = await connect(legacy, daemon)
    legacy.use(RecordingDelegate(), sc=False)
    reason = await legacy.pairing_failure(session.connection)
    assert reason == AUTHENTICATION_REQUIREMENTS, f'Pairing Failed 0x{reason:02X}'
    assert not session.connection.is_encrypted
    await check_locked(session)
    assert await bonds(daemon) == []

    # The same daemon pairs a central that offers Secure Connections.
    modern = SecureCentral(second_central)
    other = await connect(modern, daemon)
    await pair_and_wait_stored(modern, other, daemon)
    await check_unlocked(other)
    assert bonded_addresses(await bonds(daemon)) == {modern.address.upper()}


async def test_a_central_offering_short_keys_is_refused_with_the_setting_named(
        harness, central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-key-size').start()
    weak = SecureCentral(central)
    session = await connect(weak, daemon)
    delegate = weak.use(RecordingDelegate())
    delegate.maximum_encryption_key_size = 7
    reason = await weak.pairing_failure(session.connection)
    assert reason == ENCRYPTION_KEY_SIZE, f'Pairing Failed 0x{reason:02X}'
    await daemon.wait_for_log('security: minimum-key-size 16', timeout=10)
    assert not session.connection.is_encrypted
    assert await bonds(daemon) == []


# -- 6. re-pairing --------------------------------------------------------------------------------

async def test_a_central_that_lost_its_keys_must_have_its_bond_removed_before_it_pairs_again(
        harness, central, spawn_daemon, tmp_path):
    """Zephyr's rule: a Just Works pairing never replaces a bond its link did not prove (the central
    might be anyone using that address); the log says how to let it pair, and after `bonds remove`
    it does."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-lost-keys').start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    old = (await secure.keys_for(session.connection.peer_address)).ltk.value
    await disconnect(session)

    secure.forget_keys()
    session = await connect(secure, daemon)
    await check_locked(session, INSUFFICIENT_ENCRYPTION)  # the daemon still has the bond
    reason = await secure.pairing_failure(session.connection)
    assert reason == AUTHENTICATION_REQUIREMENTS, f'Pairing Failed 0x{reason:02X}'
    await daemon.wait_for_log(f'blesensor bonds remove {central.address}', timeout=5)
    assert len(await bonds(daemon)) == 1

    code, out, err = await run_cli('bonds', 'remove', secure.address, '--socket', daemon.control_socket)
    assert code == 0, (code, out, err)
    await pair_and_wait_stored(secure, session, daemon)
    await check_unlocked(session)
    new = (await secure.keys_for(session.connection.peer_address)).ltk.value
    assert new != old
    await disconnect(session)

    session = await connect(secure, daemon)
    await re_encrypt_without_pairing(secure, session)
    await check_unlocked(session)
    assert len(await bonds(daemon)) == 1


async def test_a_stranger_distributing_the_owners_identity_cannot_take_over_its_bond(
        harness, central, second_central, spawn_daemon, tmp_path):
    """The attacker knows the owner's identity address (it is on the air) and nothing else: it
    connects from its own address, pairs Just Works and distributes the owner's address as its
    identity. The pairing fails, the link is dropped, and the owner still re-encrypts with its key."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-takeover').start()
    owner = SecureCentral(central)
    session = await connect(owner, daemon)
    await pair_and_wait_stored(owner, session, daemon)
    await disconnect(session)

    attacker = SecureCentral(second_central)
    second_central.device.static_address = hci.Address(central.address, hci.Address.RANDOM_DEVICE_ADDRESS)
    session = await connect(attacker, daemon)
    gone = disconnection(session.connection)
    try:
        await attacker.pair(session.connection)
    except Exception:  # Pairing Failed arrives after Bumble sent its keys, or the link drops first
        pass
    await daemon.wait_for_log(f'paired as {central.address} (random), which is bonded', timeout=10)
    reason = await asyncio.wait_for(gone, 10)
    assert reason == AUTHENTICATION_FAILURE, f'disconnected with 0x{reason:02X}'
    listed = await bonds(daemon)
    assert bonded_addresses(listed) == {central.address.upper()}, listed

    session = await connect(owner, daemon)
    await re_encrypt_without_pairing(owner, session)
    await check_unlocked(session)


async def test_a_guesser_rotating_its_address_soon_waits_for_every_passkey_attempt(
        harness, central, second_central, spawn_daemon, tmp_path):
    """Each wrong Secure Connections passkey reveals a bit of a fixed passkey. A guesser with a new
    address for each try gets three, then every passkey pairing waits, even the owner's."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-guessing', io_capability='display-only',
                          passkey='"123456"').start()
    for attempt in range(4):
        guesser = SecureCentral(second_central)
        await guesser.use_static_address(f'C0:66:66:66:66:{attempt:02X}')
        session = await connect(guesser, daemon)
        guesser.use(RecordingDelegate(IO.KEYBOARD_INPUT_ONLY, passkey=654321 + attempt))
        reason = await guesser.pairing_failure(session.connection)
        assert reason == CONFIRM_VALUE_FAILED, f'attempt {attempt}: Pairing Failed 0x{reason:02X}'
        await disconnect(session)
    await daemon.wait_for_log('someone may be guessing the fixed passkey', timeout=5)

    guesser = SecureCentral(second_central)
    await guesser.use_static_address('C0:66:66:66:66:10')
    session = await connect(guesser, daemon)
    guesser.use(RecordingDelegate(IO.KEYBOARD_INPUT_ONLY, passkey=111111))
    reason = await guesser.pairing_failure(session.connection)
    assert reason == REPEATED_ATTEMPTS, f'Pairing Failed 0x{reason:02X}'
    await disconnect(session)

    owner = SecureCentral(central)
    session = await connect(owner, daemon)
    delegate = owner.use(RecordingDelegate(IO.KEYBOARD_INPUT_ONLY, passkey=123456))
    reason = await owner.pairing_failure(session.connection)
    assert reason == REPEATED_ATTEMPTS, f'Pairing Failed 0x{reason:02X}'
    assert not delegate.asked('passkey-asked')
    assert await bonds(daemon) == []


async def test_new_centrals_are_paced_while_pairing_is_always_allowed(
        harness, central, second_central, spawn_daemon, tmp_path):
    """A stranger arriving right after another new central is told to wait (Repeated Attempts), so
    bonds for every passer-by, or a guesser's rotating addresses, come slowly."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-paced', new_centrals_every='10m').start()
    first = SecureCentral(central)
    session = await connect(first, daemon)
    await pair_and_wait_stored(first, session, daemon)
    stranger = SecureCentral(second_central)
    other = await connect(stranger, daemon)
    reason = await stranger.pairing_failure(other.connection)
    assert reason == REPEATED_ATTEMPTS, f'Pairing Failed 0x{reason:02X}'
    await daemon.wait_for_log('security: new-centrals-every', timeout=5)
    assert len(await bonds(daemon)) == 1


async def test_a_window_opens_at_start_where_the_configuration_asks_for_one(
        harness, central, spawn_daemon, tmp_path):
    """pairing: window with window-at-start (the packaged default): a board just started pairs
    without `blesensor pair --window`."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-window-at-start', pairing='window',
                          window_at_start='10m').start()
    await daemon.wait_for_log('pairing window open for 600 s', timeout=5)
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    await check_unlocked(session)


async def test_a_random_passkey_reaches_an_administrator_and_never_the_log_or_status(
        harness, central, spawn_daemon, tmp_path):
    """Display-only with a random passkey: the phone's user asks `blesensor pair --passkey` (root
    here, as the tests run) for the digits; the log and `status` never carry them."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-random-passkey', io_capability='display-only').start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    shown: list[str] = []

    class AskingTheAdministrator(RecordingDelegate):
        async def get_number(self) -> int | None:
            self.calls.append(('passkey-asked',))
            await daemon.wait_for_log('is asking for the passkey', timeout=5)
            code, out, err = await run_cli('pair', '--passkey', '--socket', daemon.control_socket)
            assert code == 0, (code, out, err)
            digits = re.search(r'passkey: (\d{6}) ', out)
            assert digits, out
            shown.append(digits.group(1))
            return int(digits.group(1))

    secure.use(AskingTheAdministrator(IO.KEYBOARD_INPUT_ONLY))
    await pair_and_wait_stored(secure, session, daemon)
    await check_unlocked(session)
    entry = await central_status(daemon, secure.address)
    assert entry['securityLevel'] == 'authenticated-secure-connections', entry
    passkey, = shown
    assert passkey not in daemon.log, daemon.log
    status = await cli_json(daemon, 'status')
    assert status['pairing']['passkey'] is None, status['pairing']
    code, out, err = await run_cli('status', '--socket', daemon.control_socket)
    assert code == 0 and passkey not in out, out


async def test_a_re_pairing_that_fails_halfway_keeps_the_previous_bond(
        harness, central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-wrong-passkey',
                          io_capability='display-only', passkey='123456').start()
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    secure.use(RecordingDelegate(IO.KEYBOARD_INPUT_ONLY, passkey=123456))
    await pair_and_wait_stored(secure, session, daemon)
    await disconnect(session)

    session = await connect(secure, daemon)
    delegate = secure.use(RecordingDelegate(IO.KEYBOARD_INPUT_ONLY, passkey=654321))  # mistyped
    reason = await secure.pairing_failure(session.connection)
    assert reason == CONFIRM_VALUE_FAILED, f'Pairing Failed 0x{reason:02X}'
    assert delegate.asked('passkey-asked')
    await disconnect(session)

    session = await connect(secure, daemon)
    await re_encrypt_without_pairing(secure, session)
    await check_unlocked(session)
    entry = await central_status(daemon, secure.address)
    assert entry['securityLevel'] == 'authenticated-secure-connections', entry
    assert bonded_addresses(await bonds(daemon)) == {secure.address.upper()}


# -- 7. the pairing window ----------------------------------------------------------------------

async def test_pairing_is_refused_while_the_window_is_closed_and_allowed_once_opened(
        harness, central, second_central, spawn_daemon, tmp_path):
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-window', pairing='window').start()
    early = SecureCentral(central)
    session = await connect(early, daemon)
    reason = await early.pairing_failure(session.connection)
    assert reason == PAIRING_NOT_SUPPORTED, f'Pairing Failed 0x{reason:02X}'
    assert not session.connection.is_encrypted
    assert await bonds(daemon) == []
    pairing = (await cli_json(daemon, 'status'))['pairing']
    assert pairing['mode'] == 'window' and pairing['windowRemainingSeconds'] is None, pairing

    code, out, err = await run_cli('pair', '--window', '30', '--socket', daemon.control_socket)
    assert code == 0, (code, out, err)
    pairing = (await cli_json(daemon, 'status'))['pairing']
    assert 0 < pairing['windowRemainingSeconds'] <= 30, pairing
    # A central that was not refused just before (the daemon makes a refused one wait,
    # Core Vol 3 Part H 2.3.6) pairs while the window is open.
    late = SecureCentral(second_central)
    other = await connect(late, daemon)
    await pair_and_wait_stored(late, other, daemon)
    await check_unlocked(other)
    assert bonded_addresses(await bonds(daemon)) == {late.address.upper()}


# -- bond store failures ----------------------------------------------------------------------

async def test_a_corrupt_bond_store_is_moved_aside_and_the_daemon_serves_without_bonds(
        harness, central, spawn_daemon, tmp_path):
    """A bonds.sqlite that is not a database: refusing to start would take every sensor off the air
    and restart for ever; the daemon moves it aside, starts with no bonds, and says so."""
    bridge = Bridge(harness, spawn_daemon, tmp_path, 'sec-corrupt-store')
    bridge.state_dir.mkdir(parents=True)
    (bridge.state_dir / 'bonds.sqlite').write_bytes(b'this is not an SQLite database\n' * 200)
    daemon = await bridge.start()
    moved = sorted(path.name for path in bridge.state_dir.glob('bonds.sqlite.corrupt-*'))
    assert len(moved) == 1, sorted(p.name for p in bridge.state_dir.iterdir())
    assert (bridge.state_dir / moved[0]).read_bytes().startswith(b'this is not an SQLite database')
    await daemon.wait_for_log(f'moved to {bridge.state_dir / moved[0]}, started with no bonds', timeout=2)
    status = await cli_json(daemon, 'status')
    problems = status['bondStoreProblems']
    assert len(problems) == 1 and 'was corrupt' in problems[0], problems
    code, out, err = await run_cli('status', '--socket', daemon.control_socket)
    assert code == 0 and '  bond store   ' in out, out
    # A fresh store: a central pairs and is bonded as usual.
    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    assert bonded_addresses(await bonds(daemon)) == {secure.address.upper()}


async def test_a_central_that_neither_encrypts_nor_subscribes_is_dropped(
        harness, central, second_central, spawn_daemon, tmp_path):
    """One silent connection must not lock the owner out: with encryption required, a central
    that connects and does nothing is dropped after connection.silent-timeout; one that pairs stays."""
    bridge = Bridge(harness, spawn_daemon, tmp_path, 'sec-silent')
    config = tmp_path / 'security.yaml'
    config.write_text(config.read_text() + 'connection:\n  silent-timeout: 2s\n')
    daemon = await bridge.start()
    owner = SecureCentral(central)
    session = await connect(owner, daemon)
    await pair_and_wait_stored(owner, session, daemon)

    squatter = SecureCentral(second_central)
    idle = await connect(squatter, daemon)
    gone = disconnection(idle.connection)
    reason = await asyncio.wait_for(gone, 15)
    assert reason == 0x13, f'disconnected with 0x{reason:02X}'  # Remote User Terminated Connection
    await daemon.wait_for_log('neither encrypted nor subscribed within 2 s', timeout=2)
    # The paired owner was left alone.
    assert session.connection.is_encrypted
    await check_unlocked(session)


async def test_the_last_slot_is_kept_for_bonded_centrals(harness, central, second_central, spawn_daemon, tmp_path):
    """connection.last-slot-for-bonded with two slots: a stranger taking the last one is dropped at
    once ("low resources": it may come back when a slot is free), while the bonded owner taking it
    is asked to encrypt, does so with its bond and stays."""
    bridge = Bridge(harness, spawn_daemon, tmp_path, 'sec-reserved-slot')
    config = tmp_path / 'security.yaml'
    config.write_text(config.read_text() + 'connection:\n  last-slot-for-bonded: true\n')
    daemon = await bridge.start()
    owner = SecureCentral(central)
    session = await connect(owner, daemon)
    await pair_and_wait_stored(owner, session, daemon)

    stranger = SecureCentral(second_central)
    # Dropped as soon as it connects: listen from the moment the connection object exists.
    dropped = asyncio.get_running_loop().create_future()
    second_central.device.once('connection', lambda connection: connection.on(
        'disconnection', lambda why: dropped.done() or dropped.set_result(why)))
    record = await second_central.scan_for(None, timeout=5)
    await second_central.connect(record.address, timeout=5)
    reason = await asyncio.wait_for(dropped, 10)
    assert reason == 0x14, f'disconnected with 0x{reason:02X}'  # Remote Device Terminated due to Low Resources
    await daemon.wait_for_log('is kept for bonded centrals', timeout=2)
    assert session.connection.is_encrypted

    # The other way round: the stranger holds the first slot, the owner comes back into the last.
    await disconnect(session)
    first = await connect(stranger, daemon)
    session = await connect(owner, daemon)
    await owner.encrypt(session.connection)
    assert session.connection.is_encrypted
    # The daemon asked it to encrypt (Security Request); no pairing followed: the bond did it.
    smp = [str(record.command) for record in owner.smp_on(session.connection)]
    assert len(smp) == 1 and 'SMP_SECURITY_REQUEST_COMMAND' in smp[0], smp
    await check_unlocked(session)
    entry = await central_status(daemon, owner.address)
    assert entry['bonded'] and entry['securityLevel'] == 'unauthenticated', entry  # Just Works, proven by its bond
    assert first.connection.handle is not None and not first.connection.is_encrypted
    assert len((await cli_json(daemon, 'status'))['centrals']) == 2


async def test_pair_follow_shows_the_random_passkey_as_the_central_asks(
        harness, central, spawn_daemon, tmp_path):
    """`blesensor pair --window 10 --follow`, started before the phone pairs: it prints the random
    passkey the moment the phone asks, which its user types; then the outcome; then it ends when
    the window closes. The digits are still in neither the log nor status."""
    daemon = await Bridge(harness, spawn_daemon, tmp_path, 'sec-follow', io_capability='display-only',
                          pairing='window').start()
    follower = await asyncio.create_subprocess_exec(
        cli(), 'pair', '--window', '10', '--follow', '--socket', daemon.control_socket,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    lines: list[str] = []

    async def next_line(pattern: str, timeout: float = 10) -> re.Match:
        while True:
            raw = await asyncio.wait_for(follower.stdout.readline(), timeout)
            assert raw, f'pair --follow ended early: {lines}, stderr {await follower.stderr.read()!r}'
            lines.append(raw.decode().rstrip('\n'))
            if found := re.search(pattern, lines[-1]):
                return found

    try:
        await next_line(r'following pairing until the window closes')
        secure = SecureCentral(central)
        session = await connect(secure, daemon)

        class ReadingTheFollower(RecordingDelegate):
            async def get_number(self) -> int | None:
                self.calls.append(('passkey-asked',))
                return int((await next_line(r'asks for the passkey: type (\d{6}) on it')).group(1))

        secure.use(ReadingTheFollower(IO.KEYBOARD_INPUT_ONLY))
        await pair_and_wait_stored(secure, session, daemon)
        await next_line(rf'{secure.address.upper()} \(random\) paired: bonded, authenticated')
        await next_line(r'^pairing window closed$', timeout=30)
        assert await asyncio.wait_for(follower.wait(), 10) == 0, lines
    finally:
        if follower.returncode is None:
            follower.kill()
            await follower.wait()
    passkey = re.search(r'type (\d{6})', '\n'.join(lines)).group(1)
    assert passkey not in daemon.log, daemon.log
    entry = await central_status(daemon, secure.address)
    assert entry['securityLevel'] == 'authenticated-secure-connections', entry
