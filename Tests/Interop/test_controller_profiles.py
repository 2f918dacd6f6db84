"""blesensord under every controller profile of Tests/ControllerProfiles/profiles.json
(harness/profiles.py): the harness controller answers as that chip does (version, features,
states, buffers, listed commands, strict refusals, a lost reply, paced Number Of Completed
Packets) and the daemon still comes up, advertises, serves, pairs and notifies; paced credits
never overrun; and where the chip cannot advertise beside a link the daemon neither storms it
with retries nor forgets to advertise when the central leaves."""

from __future__ import annotations

import asyncio

import pytest
from bumble.device import Peer

import test_gatt_two_centrals as gatt_two_centrals
from harness import profiles
from harness.controller import HarnessController
from harness.daemon import Daemon
from harness.gatt import HRM, connect as connect_example, start_example
from harness.security import (RecordingDelegate, SecureCentral, cli_json, connect, disconnect,
                              pair_and_wait_stored, security_config)
from test_security import HUMID, HUMIDITY, INSUFFICIENT_AUTHENTICATION, ROOM, ES_TEMPERATURE

ALL = profiles.names()
# Completions paced every 30 ms through few credits: 251 x 3 LE buffers, and 1021 x 8 shared ones.
PACED = ['intel-ax200', 'cyw43455']
NO_ADVERTISING_WHILE_CONNECTED = profiles.names(advertising_while_connected=False)

OPCODE_RESET, OPCODE_WRITE_LE_HOST_SUPPORT, OPCODE_READ_BUFFER_SIZE = 0x0C03, 0x0C6D, 0x1005
OPCODE_LE_SET_EVENT_MASK, OPCODE_LE_SET_ADVERTISING_ENABLE = 0x2001, 0x200A
COMMAND_DISALLOWED = 0x0C
CANNOT_ADVERTISE = 'cannot advertise while connected'
BRING_UP = 30  # seconds: a lost reply costs a command timeout and a second bring-up
EXAMPLE_CENTRALS = 4  # heart-rate-peripheral's maxConnections


async def start(harness, spawn_daemon, tmp_path, name: str, *extra: str) -> Daemon:
    """The daemon on configs/security.yaml (simulated BME280: 2A6E needs encryption, 2A6F
    notifies once a second; two centrals), advertising."""
    daemon = await spawn_daemon(harness.port, name, '--config', str(security_config(tmp_path)), *extra)
    await daemon.wait_for_log('advertising enabled', timeout=BRING_UP)
    return daemon


def limitations(snapshot: dict) -> list[str]:
    """`controllerLimitations` of `status --json`: sentences, or objects with a `text`."""
    return [entry if isinstance(entry, str) else entry['text'] for entry in snapshot.get('controllerLimitations') or []]


def check_bring_up(controller: HarnessController, daemon: Daemon, profile: dict) -> None:
    """What the host did at the bring-up that succeeded (after the last Reset) fits the chip."""
    name, commands = profile['name'], controller.commands
    last_reset = max(i for i, r in enumerate(commands) if r.opcode == OPCODE_RESET)
    for opcode in controller.dropped_replies:
        # A lost reply during bring-up: reset and try again.
        dropped = min(i for i, r in enumerate(commands) if r.opcode == opcode)
        assert last_reset > dropped, f'{name}: no Reset after the reply to 0x{opcode:04X} was lost'
        assert daemon.count('during bring-up; resetting the controller') == 1, name
    bring_up = commands[last_reset:]
    opcodes = [r.opcode for r in bring_up]
    first_le = next(i for i, opcode in enumerate(opcodes) if opcode >> 10 == 0x08)
    host_support = [i for i, r in enumerate(bring_up)
                    if r.opcode == OPCODE_WRITE_LE_HOST_SUPPORT and r.parameters[:1] == b'\x01']
    if profiles.is_dual_mode(profile):
        assert host_support and host_support[0] < first_le, f'{name}: no Write LE Host Support before LE commands'
    else:
        assert not host_support, f'{name}: Write LE Host Support sent to an LE-only controller'
    # The LE event mask finally accepted is within what the chip takes.
    assert profiles.command_statuses(controller, OPCODE_LE_SET_EVENT_MASK)[-1] == 0, name
    if 'le_event_mask_limit' in profile['strict']:
        assert controller.le_event_mask & ~profiles.number(profile['strict']['le_event_mask_limit']) == 0
    size, count = profiles.acl_buffers(profile)
    if profile['le_acl_buffers'] == [0, 0]:
        assert OPCODE_READ_BUFFER_SIZE in opcodes, f'{name}: LE has no buffers, Read Buffer Size not asked'
    assert daemon.count(f'ACL {count} x {size} bytes') >= 1, f'{name}: expected ACL {count} x {size}'
    refused = {profiles.number(opcode) for opcode in profile['strict'].get('refuse', {})}
    if refused & set(opcodes):
        assert daemon.count('controller refused') >= 1, f'{name}: a refused optional command was not logged'


@pytest.mark.parametrize('name', ALL)
async def test_daemon_serves_pairs_and_notifies_under_the_profile(harness, central, spawn_daemon, tmp_path, name):
    profile = profiles.apply(harness.controller, name)
    daemon = await start(harness, spawn_daemon, tmp_path, f'profile-{name}')
    check_bring_up(harness.controller, daemon, profile)

    secure = SecureCentral(central)
    session = await connect(secure, daemon)
    humidity = session.characteristic(HUMIDITY)
    assert await session.read(humidity) == HUMID
    code = await session.att_error_of(session.client.read_value(session.characteristic(ES_TEMPERATURE).handle))
    assert code == INSUFFICIENT_AUTHENTICATION, f'0x{code:02X}'
    secure.use(RecordingDelegate())  # LESC Just Works
    await pair_and_wait_stored(secure, session, daemon)
    assert await session.read(session.characteristic(ES_TEMPERATURE)) == ROOM

    await asyncio.wait_for(session.peer.subscribe(humidity, lambda _v: None), 10)
    await daemon.wait_for_log(f'subscribed {central.address} 2A6F', timeout=10)
    received = session.tap.notifications[humidity.handle]
    await session.tap.wait_for(lambda: len(received) >= 2, 15, '2 notifications of 2A6F')
    assert set(received) == {HUMID}, [v.hex() for v in received]

    snapshot = await cli_json(daemon, 'status')
    said = any(CANNOT_ADVERTISE in text for text in limitations(snapshot))
    assert said == (not profiles.advertises_while_connected(profile)), limitations(snapshot)
    assert harness.controller.peak_outstanding <= harness.controller.acl_credits


# -- paced completions through few credits ---------------------------------------------------

@pytest.mark.parametrize('name', PACED)
async def test_two_centrals_on_the_daemon_under_paced_completions(
        harness, central, second_central, spawn_daemon, tmp_path, name):
    profiles.apply(harness.controller, name)
    daemon = await start(harness, spawn_daemon, tmp_path, f'paced-{name}')
    a = await connect(SecureCentral(central), daemon)
    b = await connect(SecureCentral(second_central), daemon)
    for session in (a, b):
        assert await session.read(session.characteristic(HUMIDITY)) == HUMID
        await asyncio.wait_for(session.peer.subscribe(session.characteristic(HUMIDITY), lambda _v: None), 10)
        await daemon.wait_for_log(f'subscribed {session.central.address} 2A6F', timeout=10)
    notified_a = a.tap.notifications[a.characteristic(HUMIDITY).handle]
    notified_b = b.tap.notifications[b.characteristic(HUMIDITY).handle]
    await b.tap.wait_for(lambda: len(notified_a) >= 2 and len(notified_b) >= 2, 15, '2 notifications on each')
    # A leaves: B is still served.
    await disconnect(a)
    before = len(notified_b)
    await b.tap.wait_for(lambda: len(notified_b) >= before + 2, 15, '2 more notifications on B after A left')
    assert await b.read(b.characteristic(HUMIDITY)) == HUMID
    assert harness.controller.violations == []
    assert harness.controller.peak_outstanding <= harness.controller.acl_credits


@pytest.mark.parametrize('name', PACED)
async def test_two_centrals_on_the_example_under_paced_completions(
        harness, central, second_central, spawn_example, name):
    """test_gatt_two_centrals.py's case (2A37 at 20 Hz, indications, shared Echo) on the chip."""
    profiles.apply(harness.controller, name)
    await gatt_two_centrals.test_two_centrals_own_subscriptions_shared_echo(
        harness, central, second_central, spawn_example)
    assert harness.controller.violations == []
    assert harness.controller.peak_outstanding <= harness.controller.acl_credits


@pytest.mark.parametrize('name', PACED)
async def test_notification_flood_under_paced_completions(harness, central, spawn_example, name):
    """`--stream` sends 2A37 as fast as credits allow: the host fills its link's share of the
    credits, never one more, while completions come back a few every 30 ms; no value is lost or
    reordered."""
    controller = harness.controller
    profiles.apply(controller, name)
    example = await start_example(harness, spawn_example, '--stream', name='hr-flood')
    session = await connect_example(central, example, timeout=10)
    await session.discover()
    hrm = session.characteristic(HRM)
    await asyncio.wait_for(session.peer.subscribe(hrm, lambda _v: None), 10)
    values = session.tap.notifications[hrm.handle]
    await session.tap.wait_for(lambda: len(values) >= 300, 30, '300 notifications of 2A37')
    assert controller.violations == []
    # The example allows 4 centrals: a lone link leaves one credit for each of the other three.
    share = max(1, controller.acl_credits - (EXAMPLE_CENTRALS - 1))
    assert controller.peak_outstanding == share, (controller.peak_outstanding, controller.acl_credits)
    assert all(len(v) == 20 and v[0] == 0x10 for v in values)
    bpms = [v[1] for v in values]
    for before, after in zip(bpms, bpms[1:]):
        assert after == (60 if before == 99 else before + 1), (before, after)


# -- no advertising beside a peripheral link --------------------------------------------------

async def connect_where_advertising_stops(harness, central, spawn_daemon, name: str):
    """The daemon (two centrals allowed) with one central connected, once it logged that it does
    not advertise beside the link. Returns the daemon, the central's connection, its address
    record and the number of commands before the connection."""
    daemon = await spawn_daemon(harness.port, f'one-link-{name}', '--max-connections', '2')
    await daemon.wait_for_log('advertising enabled', timeout=BRING_UP)
    record = await central.scan_for(None, timeout=10)
    said = daemon.count(CANNOT_ADVERTISE)
    since = len(harness.controller.commands)
    connection = await central.connect(record.address, timeout=10)
    await daemon.wait_for_log(f'peer {central.address}', timeout=10)
    # Paused (its states say so) or refused once (they claimed it): either way the log says why.
    await daemon.wait_for_log(CANNOT_ADVERTISE, timeout=10, occurrences=said + 1)
    return daemon, connection, record, since


async def check_advertising_stays_off_while_connected(harness, central, spawn_daemon, name: str,
                                                      states_claim_it: bool) -> None:
    controller = harness.controller
    daemon, connection, record, since = await connect_where_advertising_stops(harness, central, spawn_daemon, name)
    # Round trips through the daemon give a retry storm time to show.
    await asyncio.wait_for(Peer(connection).discover_services(), 10)
    snapshot = await cli_json(daemon, 'status')
    if not states_claim_it:
        assert any(CANNOT_ADVERTISE in text for text in limitations(snapshot)), limitations(snapshot)
    enables = [r for r in controller.commands[since:]
               if r.opcode == OPCODE_LE_SET_ADVERTISING_ENABLE and r.parameters[:1] == b'\x01']
    refusals = profiles.command_statuses(controller, OPCODE_LE_SET_ADVERTISING_ENABLE).count(COMMAND_DISALLOWED)
    assert refusals <= 1 and len(enables) <= 1, (refusals, len(enables))
    assert refusals == (1 if states_claim_it else 0)
    assert not controller.advertising_enabled

    enabled = daemon.count('advertising enabled')
    gone = asyncio.get_running_loop().create_future()
    connection.on('disconnection', lambda reason: gone.done() or gone.set_result(reason))
    await central.disconnect(connection)
    await asyncio.wait_for(gone, 10)
    await daemon.wait_for_log('advertising enabled', timeout=10, occurrences=enabled + 1)
    assert profiles.command_statuses(controller, OPCODE_LE_SET_ADVERTISING_ENABLE)[-1] == 0
    again = await central.scan_for(None, timeout=10)
    assert again.address == record.address


@pytest.mark.parametrize('name', NO_ADVERTISING_WHILE_CONNECTED)
async def test_no_advertising_beside_a_link_where_the_states_forbid_it(harness, central, spawn_daemon, name):
    profile = profiles.apply(harness.controller, name)
    assert not profiles.advertises_while_connected(profile)
    await check_advertising_stays_off_while_connected(harness, central, spawn_daemon, name, states_claim_it=False)


async def test_advertising_refused_beside_a_link_is_tried_once(harness, central, spawn_daemon):
    """A chip whose states claim it can, but which refuses (bcm4345c5 with every state bit):
    one refused LE Set Advertising Enable, then the daemon waits for the central to leave."""
    profiles.apply(harness.controller, 'bcm4345c5')
    harness.controller.le_states = profiles.number(profiles.profiles()['ideal']['le_states']).to_bytes(8, 'little')
    await check_advertising_stays_off_while_connected(harness, central, spawn_daemon, 'bcm4345c5-claims',
                                                      states_claim_it=True)


async def test_status_says_not_advertising_beside_a_link_where_the_controller_cannot(harness, central, spawn_daemon):
    profiles.apply(harness.controller, 'bcm4345c5')
    daemon, _, _, _ = await connect_where_advertising_stops(harness, central, spawn_daemon, 'bcm4345c5-status')
    assert not harness.controller.advertising_enabled
    snapshot = await cli_json(daemon, 'status')
    assert snapshot['advertising'] is False, snapshot


# -- the harness's profile switches themselves (no daemon) ------------------------------------

async def test_harness_strict_switches_and_paced_completions(harness, central):
    """Each strict switch refuses as documented, and paced completions never exceed the batch."""
    from harness.rawhost import RANDOM_STATIC_TEXT, RawHost
    from test_harness_selftest import ADV, SCAN_RSP

    controller = harness.controller
    host = await RawHost.connect(harness.port)
    try:
        await host.start_advertising(ADV, SCAN_RSP)
        controller.le_event_mask_limit, controller.refuse = 0x1F, {0x0C63: 0x01}
        controller.drop_reply_once, controller.advertising_while_connected = {0x201C}, False
        controller.completion_interval, controller.completion_batch = 0.03, 2
        assert (await host.command(OPCODE_LE_SET_EVENT_MASK, (0x3F).to_bytes(8, 'little')))[6] == 0x12
        await host.command_ok(OPCODE_LE_SET_EVENT_MASK, (0x1F).to_bytes(8, 'little'))
        assert (await host.command(0x0C63, bytes(8)))[6] == 0x01
        # The lost reply: the command after it is answered first, and the next one is answered.
        host.send(bytes.fromhex('011c2000') + bytes.fromhex('01011000'))
        answer = await host.next_event(code=0x0E)
        assert answer[4:6] == bytes.fromhex('0110'), answer.hex()
        assert (await host.command_ok(0x201C))[1:9] == controller.le_states
        assert controller.dropped_replies == [0x201C]

        record = await central.scan_for(RANDOM_STATIC_TEXT)
        await central.connect(record.address)
        handle = int.from_bytes((await host.next_event(code=0x3E))[5:7], 'little')
        assert (await host.command(OPCODE_LE_SET_ADVERTISING_ENABLE, b'\x01'))[6] == COMMAND_DISALLOWED
        pdu = bytes.fromhex('03000400') + bytes([0x02, 0x17, 0x00])  # ATT Exchange MTU Request
        for _ in range(5):
            host.send(bytes([0x02]) + handle.to_bytes(2, 'little') + len(pdu).to_bytes(2, 'little') + pdu)
        counts: list[int] = []
        while sum(counts) < 5:
            event = await host.next_event(code=0x13)
            counts.append(sum(int.from_bytes(event[6 + 4 * i:8 + 4 * i], 'little') for i in range(event[3])))
        assert max(counts) <= 2, counts

        controller.le_host_support_required = True
        await host.command_ok(OPCODE_RESET)
        assert (await host.command(0x2002))[6] == COMMAND_DISALLOWED  # LE Read Buffer Size
        await host.command_ok(OPCODE_WRITE_LE_HOST_SUPPORT, b'\x01\x00')
        await host.command_ok(0x2002)
    finally:
        await host.close()
