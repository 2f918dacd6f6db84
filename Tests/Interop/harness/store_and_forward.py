"""Store-and-forward from the central's side: the daemon on configs/store-and-forward.yaml (one
simulated TMP102 feeding 2A1C, one measurement a second), a bonded central subscribing to 2A1C
indications, and coming back to collect what was stored (the database read with
harness.measurements)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from bumble import att
from bumble.core import UUID

from .daemon import Daemon
from .gatt import Session
from .measurements import BondDatabase, StoredRow, local_time, poll_until, temperature_measurement
from .security import Bridge, SecureCentral, connect, pair_and_wait_stored, re_encrypt_without_pairing

STORE_AND_FORWARD_CONFIG = Path(__file__).parent.parent / 'configs' / 'store-and-forward.yaml'
TEMPERATURE_MEASUREMENT = UUID.from_16_bits(0x2A1C)
BODY_CELSIUS, BODY_TOLERANCE = 36.8, 0.07  # TMP102 resolution 0.0625 °C
INTERVAL = 1.0  # the measurement interval of the configuration, seconds
# Failure bounds: a few measurement intervals, never waited out when things work.
STORED_WITHIN = 3 * INTERVAL + 5


def store_and_forward_bridge(harness, spawn_daemon, tmp_path: Path, name: str, **security: str) -> Bridge:
    return Bridge(harness, spawn_daemon, tmp_path, name, base=STORE_AND_FORWARD_CONFIG, **security)


async def subscribe_indications(secure: SecureCentral, session: Session, daemon: Daemon) -> int:
    """Enables 2A1C indications (a CCCD write) and returns the value handle."""
    characteristic = session.characteristic(TEMPERATURE_MEASUREMENT)
    await asyncio.wait_for(session.peer.subscribe(characteristic, lambda _v: None, prefer_notify=False), 5)
    await daemon.wait_for_log(f'subscribed {secure.address} 2A1C indicate', timeout=5)
    return characteristic.handle


async def bonded_and_subscribed(secure: SecureCentral, daemon: Daemon, live: int = 2) -> tuple[Session, int]:
    """Connects, pairs (LESC Just Works), subscribes and receives `live` indications."""
    session = await connect(secure, daemon)
    await pair_and_wait_stored(secure, session, daemon)
    handle = await subscribe_indications(secure, session, daemon)
    indicated = session.tap.indications[handle]
    await session.tap.wait_for(lambda: len(indicated) >= live, live * INTERVAL + 5, f'{live} live 2A1C indications')
    return session, handle


def check_rows(rows: list[StoredRow], handle: int) -> None:
    """Stored rows carry the measured temperature and a time stamp matching `taken_at`, in order."""
    for row in rows:
        assert row.value_handle == handle, row
        celsius, stamp = temperature_measurement(row.value)
        assert abs(celsius - BODY_CELSIUS) <= BODY_TOLERANCE, row
        # The time stamp is taken just before the store's clock reading, at a 1 s resolution.
        lag = (local_time(row.taken_at) - stamp).total_seconds()
        assert 0 <= lag < 2, (row, stamp, local_time(row.taken_at))
    assert [r.sequence for r in rows] == sorted(r.sequence for r in rows)
    assert [r.taken_at for r in rows] == sorted(r.taken_at for r in rows)


@dataclasses.dataclass
class Comeback:
    session: Session
    snapshot: list[StoredRow]  # the central's stored rows when encryption started
    dropped: int  # the bond's count of measurements dropped at the bound, then
    started: float  # event loop time encryption started


async def come_back(secure: SecureCentral, daemon: Daemon, db: BondDatabase, handle: int) -> Comeback:
    """Reconnects; right after the daemon stored a fresh measurement (the next one is an interval
    away, so the drain is exactly what is stored now), re-encrypts with the bond's key: no
    pairing, no CCCD write."""
    session = await connect(secure, daemon)
    assert session.characteristic(TEMPERATURE_MEASUREMENT).handle == handle
    rows = db.rows(secure.address)
    await db.wait_rows(secure.address, 1, STORED_WITHIN, after=rows[-1].sequence if rows else 0)
    snapshot, dropped = db.snapshot(secure.address)
    started = asyncio.get_running_loop().time()
    await re_encrypt_without_pairing(secure, session)
    return Comeback(session, snapshot, dropped, started)


async def wait_drained(db: BondDatabase, address: str, timeout: float = 10) -> None:
    await poll_until(lambda: not db.rows(address), timeout, lambda: f'store emptied; still stored: {db.rows(address)}')


def no_cccd_written(session: Session) -> None:
    written = [op for op in session.tap.sent_opcodes
               if op in (att.Opcode.ATT_WRITE_REQUEST, att.Opcode.ATT_WRITE_COMMAND)]
    assert written == [], 'the central wrote something (a CCCD) after reconnecting'
