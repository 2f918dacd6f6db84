"""Store-and-forward from the outside: the daemon's bond database (`<state dir>/bonds.sqlite`)
read with Python's sqlite3 on read-only connections (never a write, never a checkpoint,
so the daemon's file is exactly what it left), and Temperature Measurement (2A1C) values
decoded here from the Health Thermometer specification."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import math
import sqlite3
import struct
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class StoredRow:
    """One row of the `measurement` table."""

    sequence: int
    bond_id: int
    value_handle: int
    value: bytes
    taken_at: float  # seconds since 2001-01-01 UTC (Foundation's reference date)


class BondDatabase:
    """`bonds.sqlite` through short-lived read-only connections. Each query runs in its own
    read transaction, so it sees exactly the transactions committed before it began."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / 'bonds.sqlite'

    def open(self) -> sqlite3.Connection:
        # mode=ro: SQLite still maps the -shm wal-index (shared memory), but never writes
        # the database or the WAL, so a reader cannot mask or repair what a kill left.
        connection = sqlite3.connect(f'file:{self.path}?mode=ro', uri=True, timeout=5)
        return connection

    def query(self, sql: str, *arguments) -> list[tuple]:
        connection = self.open()
        try:
            return connection.execute(sql, arguments).fetchall()
        finally:
            connection.close()

    def exists(self) -> bool:
        return self.path.exists()

    def integrity_check(self) -> list[str]:
        return [row[0] for row in self.query('PRAGMA integrity_check')]

    def bond_id(self, address: str) -> int | None:
        found = self.query('SELECT id FROM bond WHERE upper(address) = upper(?)', address)
        assert len(found) <= 1, found
        return found[0][0] if found else None

    def dropped(self, address: str) -> int:
        (count,), = self.query('SELECT dropped_measurements FROM bond WHERE upper(address) = upper(?)', address)
        return count

    def snapshot(self, address: str) -> tuple[list[StoredRow], int]:
        """The central's stored rows and its dropped count, read in one transaction."""
        connection = self.open()
        try:
            with connection:
                connection.execute('BEGIN')
                (dropped,), = connection.execute(
                    'SELECT dropped_measurements FROM bond WHERE upper(address) = upper(?)', (address,)).fetchall()
                rows = self._rows(connection, address)
            return rows, dropped
        finally:
            connection.close()

    def rows(self, address: str | None = None) -> list[StoredRow]:
        """The stored measurements (of one bonded central), oldest first."""
        connection = self.open()
        try:
            return self._rows(connection, address)
        finally:
            connection.close()

    @staticmethod
    def _rows(connection: sqlite3.Connection, address: str | None) -> list[StoredRow]:
        sql = 'SELECT sequence, bond_id, value_handle, value, taken_at FROM measurement'
        if address is None:
            found = connection.execute(sql + ' ORDER BY sequence').fetchall()
        else:
            found = connection.execute(
                sql + ' WHERE bond_id IN (SELECT id FROM bond WHERE upper(address) = upper(?)) ORDER BY sequence',
                (address,)).fetchall()
        return [StoredRow(s, b, h, bytes(v), t) for s, b, h, v, t in found]

    async def wait_rows(self, address: str, count: int, timeout: float, after: int = 0) -> list[StoredRow]:
        """Waits until at least `count` rows with a sequence above `after` are stored for the
        central; returns all its rows."""
        rows: list[StoredRow] = []

        def stored() -> bool:
            nonlocal rows
            rows = self.rows(address) if self.exists() else []
            return sum(row.sequence > after for row in rows) >= count

        await poll_until(stored, timeout, lambda: f'{count} new measurement(s) for {address} stored; rows: {rows}')
        return rows


async def poll_until(condition, timeout: float, what, interval: float = 0.02) -> None:
    """Checks `condition()` until it holds. sqlite3 has no change notification, so the database
    is polled; `timeout` is only the failure bound, and `what()` says what did not happen."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f'not within {timeout} s: {what()}')
        await asyncio.sleep(interval)


# -- 2A1C Temperature Measurement (Health Thermometer Service 3.1) -------------------------------

def _ieee11073(word: int, mantissa_bits: int, exponent_bits: int) -> float:
    """Signed exponent above a signed mantissa; the five special mantissas (NaN, NRes, ±INF,
    reserved: 0x7FF…F, 0x80…0, 0x7FF…E, 0x80…2, 0x80…1) are NaN."""
    top = 1 << (mantissa_bits - 1)
    mantissa, exponent = word & ((1 << mantissa_bits) - 1), word >> mantissa_bits
    if mantissa in (top - 1, top, top - 2, top + 2, top + 1):
        return math.nan
    if mantissa >= top:
        mantissa -= 1 << mantissa_bits
    if exponent >= 1 << (exponent_bits - 1):
        exponent -= 1 << exponent_bits
    return mantissa * 10.0 ** exponent


def ieee11073_float(raw: bytes) -> float:
    """32-bit FLOAT: 8-bit signed exponent, 24-bit signed mantissa (the special values are NaN)."""
    return _ieee11073(struct.unpack('<I', raw)[0], 24, 8)


def ieee11073_sfloat(raw: bytes) -> float:
    """16-bit SFLOAT: 4-bit signed exponent, 12-bit signed mantissa (the special values are NaN)."""
    return _ieee11073(struct.unpack('<H', raw)[0], 12, 4)


def temperature_measurement(value: bytes) -> tuple[float, datetime.datetime]:
    """(°C, time stamp) of a 2A1C value that must carry a time stamp: flags (bit 0 Fahrenheit,
    bit 1 time stamp present, bit 2 type present), FLOAT, then Date Time (2A08: year uint16,
    month, day, hours, minutes, seconds)."""
    assert len(value) >= 12, value.hex()
    flags = value[0]
    assert flags & 0x01 == 0, f'expected Celsius, flags 0x{flags:02X}'
    assert flags & 0x02, f'no time stamp, flags 0x{flags:02X}: {value.hex()}'
    assert len(value) == 12 + (1 if flags & 0x04 else 0), value.hex()
    year, month, day, hours, minutes, seconds = struct.unpack_from('<HBBBBB', value, 5)
    return ieee11073_float(value[1:5]), datetime.datetime(year, month, day, hours, minutes, seconds)


def time_stamp(value: bytes) -> datetime.datetime:
    return temperature_measurement(value)[1]


REFERENCE_DATE = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)
REFERENCE_UNIX = 978307200  # REFERENCE_DATE as Unix time


def unix_time(taken_at: float) -> float:
    return taken_at + REFERENCE_UNIX


def local_time(taken_at: float) -> datetime.datetime:
    """A `taken_at` column as the daemon's local wall-clock time (what its time stamps carry)."""
    return (REFERENCE_DATE + datetime.timedelta(seconds=taken_at)).astimezone().replace(tzinfo=None)


# -- 2A5F PLX Continuous Measurement (Pulse Oximeter Service) ------------------------------------

def plx_continuous_measurement(value: bytes) -> dict:
    """flags; SpO2PR-Normal; [Fast (bit 0)]; [Slow (bit 1)]; [status u16 (bit 2)];
    [device and sensor status u24 (bit 3)]; [PAI SFLOAT (bit 4)]."""
    flags, offset = value[0], 5
    result = {'spo2': ieee11073_sfloat(value[1:3]), 'pr': ieee11073_sfloat(value[3:5])}
    offset += 4 if flags & 0x01 else 0
    offset += 4 if flags & 0x02 else 0
    if flags & 0x04:
        result['status'] = struct.unpack('<H', value[offset:offset + 2])[0]
        offset += 2
    if flags & 0x08:
        result['device'] = int.from_bytes(value[offset:offset + 3], 'little')
        offset += 3
    if flags & 0x10:
        result['pai'] = ieee11073_sfloat(value[offset:offset + 2])
        offset += 2
    assert offset == len(value), value.hex()
    return result
