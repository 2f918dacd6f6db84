"""Store-and-forward of Health Thermometer Temperature Measurements (2A1C): a bonded Bumble
central that enabled indications and went away gets what was measured meanwhile — kept in
`<state dir>/bonds.sqlite`, across a daemon restart too — indicated in order once it is back
and its link encrypted again (no CCCD write), then the live measurements. The database is
observed with Python's sqlite3 (read-only), the values decoded here. The daemon runs
configs/store-and-forward.yaml: one simulated TMP102, one measurement a second."""

from __future__ import annotations

import asyncio
import math
import time

import pytest

from harness.daemon import Daemon
from harness.gatt import CCCD
from harness.measurements import BondDatabase, StoredRow, poll_until, temperature_measurement, time_stamp, unix_time
from harness.security import Bridge, SecureCentral, connect, disconnect, re_encrypt_without_pairing
from harness.store_and_forward import (BODY_CELSIUS, BODY_TOLERANCE, INTERVAL, STORED_WITHIN,
                                       TEMPERATURE_MEASUREMENT, bonded_and_subscribed, check_rows, come_back,
                                       no_cccd_written, store_and_forward_bridge, subscribe_indications,
                                       wait_drained)


def check_strictly_increasing(values: list[bytes]) -> None:
    stamps = [time_stamp(v) for v in values]
    if not all(a < b for a, b in zip(stamps, stamps[1:])):
        raise AssertionError(f'time stamps not increasing: {[str(s) for s in stamps]}')


async def wall_clock_in_a_later_second(unix: float) -> None:
    """Until the wall clock (what time stamps carry, at 1 s resolution) has left the second of
    `unix`: at most a second. A barrier on the clock itself, not a guess at the daemon's pace."""
    target = math.floor(unix) + 1
    while (left := target - time.time()) > 0:
        await asyncio.sleep(left)


async def restart_in_a_later_second(bridged: Bridge, db: BondDatabase, address: str) -> tuple[Daemon, list[StoredRow]]:
    """SIGTERM and start again once the wall clock has left the second of the last stored
    measurement: the new process measures at once, and within that second its time stamp would
    rightly equal the last one (time stamps have 1 s resolution), which the order check here
    could not tell from a repeat."""
    while True:
        rows = db.rows(address)
        await wall_clock_in_a_later_second(unix_time(rows[-1].taken_at))
        if db.rows(address) == rows:  # none stored while waiting, so the second is past
            break
    return await bridged.restart(), rows


# -- 1. stored while away, indicated in order when back ------------------------------------------

@pytest.mark.parametrize('restart', [False, True], ids=['away', 'restarted-while-away'])
async def test_measurements_taken_while_away_are_indicated_in_order_then_live_ones(
        harness, central, spawn_daemon, tmp_path, restart):
    bridged = store_and_forward_bridge(harness, spawn_daemon, tmp_path, 'saf-restart' if restart else 'saf-away')
    daemon = await bridged.start()
    db = BondDatabase(bridged.state_dir)
    secure = SecureCentral(central)
    session, handle = await bonded_and_subscribed(secure, daemon)
    # Delivered live to a connected central: nothing is kept for it.
    assert db.rows(secure.address) == []
    before = list(session.tap.indications[handle])
    await disconnect(session)

    away = await db.wait_rows(secure.address, 3, STORED_WITHIN)
    if restart:
        daemon, away = await restart_in_a_later_second(bridged, db, secure.address)
        await daemon.wait_for_log('store-and-forward: 1 bonded central(s) get Temperature Measurements kept', 5)
        # Kept through the restart, and storing goes on in the new process.
        assert db.rows(secure.address)[:len(away)] == away
        away = await db.wait_rows(secure.address, 2, STORED_WITHIN, after=away[-1].sequence)

    back = await come_back(secure, daemon, db, handle)
    session, snapshot, started = back.session, back.snapshot, back.started
    assert snapshot[:len(away)] == away, 'rows changed or vanished while the central was away'
    check_rows(snapshot, handle)
    indicated = session.tap.indications[handle]
    await session.tap.wait_for(lambda: len(indicated) >= len(snapshot), 5, f'{len(snapshot)} stored measurements')
    elapsed = asyncio.get_running_loop().time() - started
    assert elapsed < INTERVAL, f'the drain took {elapsed:.2f} s: a new measurement may have joined it'
    # First what the database held, as it held it, oldest first.
    assert indicated[:len(snapshot)] == [row.value for row in snapshot]
    await wait_drained(db, secure.address)
    await daemon.wait_for_log(f'store-and-forward: {len(snapshot)} stored measurement(s) indicated to', 5)

    # Then live ones, newer than anything stored; every time stamp after the previous one.
    drained = len(indicated)
    await session.tap.wait_for(lambda: len(indicated) >= drained + 2, 2 * INTERVAL + 5, '2 live indications')
    check_strictly_increasing(before + indicated)
    for value in indicated:
        assert abs(temperature_measurement(value)[0] - BODY_CELSIUS) <= BODY_TOLERANCE, value.hex()
    no_cccd_written(session)
    assert session.tap.notifications[handle] == []
    assert db.rows(secure.address) == [], 'live measurements were stored for a connected central'
    print(f'{len(snapshot)} stored measurement(s) indicated in {elapsed * 1000:.0f} ms, then '
          f'{len(indicated) - len(snapshot)} live; time stamps {[str(time_stamp(v)) for v in indicated]}')


# -- 2. the bound ---------------------------------------------------------------------------------

async def test_only_the_newest_measurements_up_to_the_bound_are_kept(harness, central, spawn_daemon, tmp_path):
    bridged = store_and_forward_bridge(harness, spawn_daemon, tmp_path, 'saf-bound', store_and_forward='2')
    daemon = await bridged.start()
    db = BondDatabase(bridged.state_dir)
    secure = SecureCentral(central)
    session, handle = await bonded_and_subscribed(secure, daemon)
    await disconnect(session)

    # Every stored row the reader sees; with a bound of 2, a fourth measurement drops two.
    seen: dict[int, StoredRow] = {}

    def two_dropped() -> bool:
        seen.update((row.sequence, row) for row in db.rows(secure.address))
        assert len(db.rows(secure.address)) <= 2
        return db.dropped(secure.address) >= 2

    await poll_until(two_dropped, 4 * INTERVAL + 5, lambda: f'4 measurements stored: {seen}')

    back = await come_back(secure, daemon, db, handle)
    session, snapshot, dropped, started = back.session, back.snapshot, back.dropped, back.started
    seen.update((row.sequence, row) for row in snapshot)
    assert len(snapshot) == 2 and dropped >= 2, (snapshot, dropped)
    # The newest two: the last sequences stored, nothing older kept.
    assert [row.sequence for row in snapshot] == sorted(seen)[-2:]
    check_rows(snapshot, handle)
    indicated = session.tap.indications[handle]
    await session.tap.wait_for(lambda: len(indicated) >= 2, 5, 'the 2 stored measurements')
    assert asyncio.get_running_loop().time() - started < INTERVAL
    assert indicated[:2] == [row.value for row in snapshot]
    await daemon.wait_for_log(f'store-and-forward: {dropped} measurement(s) for ', 5)
    line = next(line for line in daemon.lines if f'store-and-forward: {dropped} measurement(s) for ' in line)
    assert 'were dropped while it was away (more than 2 kept)' in line, line
    await wait_drained(db, secure.address)
    assert db.dropped(secure.address) == 0, 'the dropped count outlived the delivery'

    drained = len(indicated)
    await session.tap.wait_for(lambda: len(indicated) >= drained + 1, INTERVAL + 5, 'a live indication')
    older = {row.value for sequence, row in seen.items() if sequence < snapshot[0].sequence}
    assert older and not older & set(indicated), 'a dropped measurement was indicated'
    check_strictly_increasing(indicated)
    no_cccd_written(session)
    print(f'{len(seen)} stored, {dropped} dropped, {len(snapshot)} indicated: {line}')


# -- 3. indications turned off before leaving ----------------------------------------------------

async def test_a_central_that_turned_indications_off_before_leaving_gets_nothing_stored(
        harness, central, second_central, spawn_daemon, tmp_path):
    bridged = store_and_forward_bridge(harness, spawn_daemon, tmp_path, 'saf-off')
    daemon = await bridged.start()
    db = BondDatabase(bridged.state_dir)
    quiet, control = SecureCentral(central), SecureCentral(second_central)
    session, handle = await bonded_and_subscribed(quiet, daemon)
    # The second central stays subscribed and leaves too: proof that measurements were stored.
    other, _ = await bonded_and_subscribed(control, daemon)
    await asyncio.wait_for(session.peer.unsubscribe(session.characteristic(TEMPERATURE_MEASUREMENT)), 5)
    await daemon.wait_for_log(f'unsubscribed {quiet.address} 2A1C', timeout=5)
    await disconnect(session)
    await disconnect(other)

    kept = await db.wait_rows(control.address, 3, STORED_WITHIN)
    assert db.bond_id(quiet.address) is not None, 'the bond itself is gone'
    assert db.rows(quiet.address) == []

    session = await connect(quiet, daemon)
    await re_encrypt_without_pairing(quiet, session)
    # A measurement taken after the bond's state was restored on the encrypted link.
    await db.wait_rows(control.address, 1, STORED_WITHIN, after=db.rows(control.address)[-1].sequence)
    cccd = session.characteristic(TEMPERATURE_MEASUREMENT).get_descriptor(CCCD)
    assert await session.read(cccd) == b'\x00\x00', 'indications were restored although turned off'
    assert session.tap.indications[handle] == [] and db.rows(quiet.address) == []

    # Turned on again, it gets live measurements only: none of those kept for the other central.
    await subscribe_indications(quiet, session, daemon)
    indicated = session.tap.indications[handle]
    await session.tap.wait_for(lambda: len(indicated) >= 2, 2 * INTERVAL + 5, '2 live indications')
    assert not {row.value for row in kept} & set(indicated), 'a measurement from while it was away arrived'
    assert db.rows(quiet.address) == []
    print(f'{len(kept)} kept for the subscribed central, none for the one that turned indications off')
