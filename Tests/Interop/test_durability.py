"""kill -9 while the daemon writes its bond database: a bonded central subscribed to 2A1C
indications is away, so every measurement (one a second) is a committed write to
`<state dir>/bonds.sqlite`. The daemon is started on the same state directory and SIGKILLed 100
times, at points taken from observed progress: right after the process started, once it
reached the controller (store open), in the middle of a measurement's commit (the WAL just
changed), and right after the 1st or 2nd new row became visible to a concurrent read-only
sqlite3 reader. After every kill the file passes `PRAGMA integrity_check`, the bond and its
subscription are there, and no row a reader ever saw committed is gone or changed. At the end
the central comes back and gets every surviving measurement, in order."""

from __future__ import annotations

import asyncio
import collections
import os
import signal
import sqlite3
import threading
import time

import pytest

from harness.daemon import Daemon
from harness.gatt import CCCD
from harness.measurements import BondDatabase, StoredRow, time_stamp
from harness.security import Bridge, SecureCentral, disconnect
from harness.store_and_forward import (STORED_WITHIN, TEMPERATURE_MEASUREMENT, bonded_and_subscribed, check_rows,
                                       come_back, no_cccd_written, store_and_forward_bridge, wait_drained)

KILLS = 100
# Where each kill lands, in turn: (what to wait for, new rows seen first).
KILL_POINTS = [
    ('started', 0),    # right after the process was created: opening or creating the store
    ('connected', 0),  # it reached the controller: the store is open, its checks done
    ('wal', 0),        # the first measurement of this run is being committed
    ('row', 1),        # right after that measurement became visible
    ('wal', 1),        # the next one is being committed
    ('row', 2),
]
STEP_WITHIN = STORED_WITHIN  # failure bound for any kill point to be reached


def wal_state(db: BondDatabase) -> tuple[int, int] | None:
    """Size and modification time of the WAL: they change as soon as a commit starts writing its
    frames, before readers can see it."""
    try:
        status = os.stat(f'{db.path}-wal')
    except FileNotFoundError:
        return None
    return status.st_size, status.st_mtime_ns


class Watcher(threading.Thread):
    """A concurrent read-only reader, in a thread of its own so it reacts within a millisecond:
    records every measurement row it sees committed (sequence -> row) and, at `point`, SIGKILLs
    the daemon itself. `None` as point: only records (the test kills)."""

    def __init__(self, db: BondDatabase, bond_id: int, pid: int, point: tuple[str, int] | None,
                 seen: dict[int, StoredRow]) -> None:
        super().__init__(daemon=True)
        self.db, self.bond_id, self.pid, self.point, self.seen = db, bond_id, pid, point, seen
        self.stop = threading.Event()
        self.killed = threading.Event()
        self.new_rows = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.watch()
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error

    def watch(self) -> None:
        connection = self.db.open()
        last = max(self.seen, default=0)
        baseline = wal_state(self.db)  # WAL as of the rows seen so far
        try:
            while not self.stop.is_set():
                try:
                    found = connection.execute(
                        'SELECT sequence, bond_id, value_handle, value, taken_at FROM measurement '
                        'WHERE bond_id = ? AND sequence > ? ORDER BY sequence', (self.bond_id, last)).fetchall()
                except sqlite3.OperationalError as error:
                    # A restarted daemon recovering the WAL holds it exclusively for a moment.
                    if 'locked' not in str(error) and 'busy' not in str(error):
                        raise
                    found = []
                for sequence, bond_id, handle, value, taken_at in found:
                    self.seen[sequence] = StoredRow(sequence, bond_id, handle, bytes(value), taken_at)
                    last = sequence
                    self.new_rows += 1
                if found:
                    # The WAL with those rows in it: its next change is the next commit.
                    baseline = wal_state(self.db)
                if self.point and self.due(baseline):
                    os.kill(self.pid, signal.SIGKILL)
                    self.killed.set()
                    return
                time.sleep(0.0005)
        finally:
            connection.close()

    def due(self, baseline: tuple[int, int] | None) -> bool:
        kind, rows = self.point
        if self.new_rows < rows:
            return False
        return kind == 'row' or (kind == 'wal' and wal_state(self.db) != baseline)


def check_after_kill(db: BondDatabase, address: str, cccd_handle: int, seen: dict[int, StoredRow]) -> list[StoredRow]:
    """The state a kill left, read without repairing anything."""
    assert db.integrity_check() == ['ok']
    bond_id = db.bond_id(address)
    assert bond_id is not None, f'the bond of {address} is gone'
    cccd = db.query('SELECT value FROM cccd WHERE bond_id = ? AND handle = ?', bond_id, cccd_handle)
    assert cccd and cccd[0][0] & 0x0002, f'the 2A1C subscription is gone: {cccd}'
    rows = db.rows(address)
    stored = {row.sequence: row for row in rows}
    lost = [row for sequence, row in seen.items() if stored.get(sequence) != row]
    assert lost == [], f'{len(lost)} row(s) seen committed are gone or changed: {lost[:3]}'
    return rows


# Nine daemon starts and kills, then 100 indications confirmed one by one: over pytest.ini's
# 60 s safety net on a busy machine, though each wait inside has its own bound.
@pytest.mark.timeout(300)
async def test_kill_9_during_bond_and_measurement_writes_loses_nothing_committed(
        harness, central, spawn_daemon, tmp_path):
    began = time.monotonic()
    # No bound in reach: every row stays until the central confirms it.
    bridged: Bridge = store_and_forward_bridge(harness, spawn_daemon, tmp_path, 'durability',
                                               store_and_forward='10000')
    daemon = await bridged.start()
    db = BondDatabase(bridged.state_dir)
    secure = SecureCentral(central)
    session, handle = await bonded_and_subscribed(secure, daemon, live=1)
    cccd_handle = session.characteristic(TEMPERATURE_MEASUREMENT).get_descriptor(CCCD).handle
    await disconnect(session)
    bond_id = db.bond_id(secure.address)
    assert bond_id is not None
    seen: dict[int, StoredRow] = {row.sequence: row for row in await db.wait_rows(secure.address, 1, STORED_WITHIN)}
    daemon.process.kill()
    await daemon.wait_exit(5)
    await harness.wait_idle(5)
    check_after_kill(db, secure.address, cccd_handle, seen)

    tally: collections.Counter[str] = collections.Counter()
    in_flight_kept = 0  # 'wal' kills whose interrupted commit turned out complete
    for kill in range(KILLS):
        point = KILL_POINTS[kill % len(KILL_POINTS)]
        daemon = await spawn_daemon(harness.port, bridged.name, *bridged.extra)
        watcher = Watcher(db, bond_id, daemon.process.pid, point if point[0] in ('wal', 'row') else None, seen)
        watcher.start()
        if point[0] == 'started':
            daemon.process.kill()
        elif point[0] == 'connected':
            await harness.wait_host_connected(STEP_WITHIN)
            daemon.process.kill()
        else:
            exited = asyncio.ensure_future(daemon.process.wait())
            killed = asyncio.ensure_future(asyncio.to_thread(watcher.killed.wait, STEP_WITHIN))
            await asyncio.wait([exited, killed], return_when=asyncio.FIRST_COMPLETED)
            assert watcher.killed.is_set(), (
                f'kill {kill}: {point} not reached within {STEP_WITHIN} s (exit {daemon.process.returncode}, '
                f'{watcher.new_rows} new rows, error {watcher.error!r}); log:\n{daemon.log}')
            killed.cancel()
        code = await daemon.wait_exit(5)
        watcher.stop.set()
        await asyncio.to_thread(watcher.join, 5)
        assert watcher.error is None, f'kill {kill}: the reader failed: {watcher.error!r}'
        # Killed by us, not ended by itself.
        assert code == -signal.SIGKILL, f'kill {kill} at {point}: exit {code}; log:\n{daemon.log}'
        await harness.wait_idle(5)

        rows = check_after_kill(db, secure.address, cccd_handle, seen)
        if point[0] == 'wal' and len(rows) > len(seen):
            in_flight_kept += 1
        seen.update((row.sequence, row) for row in rows)
        tally[f'{point[0]}-{point[1]}'] += 1
    loop_seconds = time.monotonic() - began
    assert harness.refused_connections == 0

    # All of it, in order, to the central coming back; time stamps may repeat across kills
    # (a new process measures at once: see test_store_and_forward's xfail), taken_at may not.
    rows = db.rows(secure.address)
    assert sorted(seen) == [row.sequence for row in rows]
    check_rows(rows, handle)
    daemon = await bridged.start()
    back = await come_back(secure, daemon, db, handle)
    session, snapshot = back.session, back.snapshot
    assert snapshot[:len(rows)] == rows
    indicated = session.tap.indications[handle]
    # A liveness bound only: each indication waits for Bumble's confirmation, and on a busy machine
    # 100 of those took longer than 30 s.
    await session.tap.wait_for(lambda: len(indicated) >= len(snapshot), 120,
                               f'{len(snapshot)} stored measurements')
    assert indicated[:len(snapshot)] == [row.value for row in snapshot]
    await wait_drained(db, secure.address, timeout=120)
    stamps = [time_stamp(value) for value in indicated]
    assert stamps == sorted(stamps), [str(s) for s in stamps]
    no_cccd_written(session)
    await daemon.wait_for_log('store-and-forward: ', 5)
    print(f'{KILLS} kills ({dict(tally)}; {in_flight_kept} interrupted commits found complete) in '
          f'{loop_seconds:.1f} s; {len(rows)} rows kept and checked after every kill, '
          f'{len(snapshot)} indicated in order; total {time.monotonic() - began:.1f} s')
