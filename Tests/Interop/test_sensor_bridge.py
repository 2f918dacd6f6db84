"""The sensor bridge end to end: blesensord on the simulated board (or a configuration with a
scripted fault) behind the harness controller, a Bumble central discovering, reading,
writing and subscribing; values decoded here, independently, with struct. Also the
configuration checks and `blesensor status` over the control socket."""

from __future__ import annotations

import asyncio
import json
import math
import struct
from collections.abc import Callable

from bumble import att
from bumble.core import UUID
from bumble.gatt_client import CharacteristicProxy

from bumble.device import Peer

from harness.cli import cli, run_cli
from harness.gatt import CCCD, ClientTap, Session

U = UUID.from_16_bits

GAP, GATT = U(0x1800), U(0x1801)
HEART_RATE, THERMOMETER, ENVIRONMENTAL, BATTERY, DEVICE_INFO = (
    U(0x180D), U(0x1809), U(0x181A), U(0x180F), U(0x180A))
HRM, LOCATION, HR_CONTROL_POINT = U(0x2A37), U(0x2A38), U(0x2A39)
TEMPERATURE_MEASUREMENT, TEMPERATURE_TYPE, INTERMEDIATE, MEASUREMENT_INTERVAL = (
    U(0x2A1C), U(0x2A1D), U(0x2A1E), U(0x2A21))
ES_TEMPERATURE, HUMIDITY, PRESSURE = U(0x2A6E), U(0x2A6F), U(0x2A6D)
BATTERY_LEVEL = U(0x2A19)
MANUFACTURER, MODEL, FIRMWARE, SOFTWARE, PNP_ID = U(0x2A29), U(0x2A24), U(0x2A26), U(0x2A28), U(0x2A50)
VALID_RANGE, ES_MEASUREMENT, ES_TRIGGER = U(0x2906), U(0x290C), U(0x290D)

# The sensor services (and the characteristics each must have); GAP, GATT may carry more.
SENSOR_SERVICES = {
    HEART_RATE: {HRM, LOCATION, HR_CONTROL_POINT},
    THERMOMETER: {TEMPERATURE_MEASUREMENT, TEMPERATURE_TYPE, INTERMEDIATE, MEASUREMENT_INTERVAL},
    ENVIRONMENTAL: {ES_TEMPERATURE, HUMIDITY, PRESSURE},
    BATTERY: {BATTERY_LEVEL},
    DEVICE_INFO: {MANUFACTURER, MODEL, FIRMWARE, SOFTWARE, PNP_ID},
}
SUBSCRIBABLE = {HRM, TEMPERATURE_MEASUREMENT, INTERMEDIATE, MEASUREMENT_INTERVAL,
                ES_TEMPERATURE, HUMIDITY, PRESSURE, BATTERY_LEVEL}

OUT_OF_RANGE = 0xFF  # ATT / Core Specification Supplement common profile error
HANDLE_VALUE_CONFIRMATION = 0x1E

# -- what the simulated chips hold: register bytes from the datasheets -----------------------
# The simulated board is loaded with raw registers (`simulation: {registers: ...}`) and the
# expected values are computed here from those bytes with the datasheets' formulas, so no
# expectation comes from the daemon's own conversion code.

# BMP280 datasheet 8.2 worked example (the BME280 shares T and P compensation): the calibration
# words little-endian from 0x88 (then 0xA0 reserved and dig_H1 = 75), 0xE1...0xE7 with typical
# humidity trimming (dig_H2 362, dig_H3 0, dig_H4 324, dig_H5 50, dig_H6 30), and the data
# registers press_msb...hum_lsb holding adc_P 415148, adc_T 519888, adc_H 30000.
BME280_BLOCK_1 = '70 6B 43 67 18 FC 7D 8E 43 D6 D0 0B 27 0B 8C 00 F9 FF 8C 3C F8 C6 70 17 00 4B'
BME280_BLOCK_2 = '6A 01 00 14 24 03 1E'
BME280_DATA = '65 5A C0 7E ED 00 75 30'
# TMP102 temperature register: 12-bit two's complement in bits 15...4, 0.0625 °C per LSB.
TMP102_TEMPERATURE = '24 D0'


def tmp102_celsius(register: str) -> float:
    """TMP102 datasheet 7.3.1 / table 7-1."""
    raw = int.from_bytes(bytes.fromhex(register), 'big', signed=True) >> 4
    return raw * 0.0625


def bme280_compensate(block1: str, block2: str, data: str) -> tuple[float, float, float]:
    """BME280 datasheet 4.2.2 (trimming parameter layout) and 8.1 (compensation in double
    precision): -> (°C, Pa, %RH)."""
    b1, b2, d = bytes.fromhex(block1), bytes.fromhex(block2), bytes.fromhex(data)
    t1, t2, t3 = struct.unpack_from('<Hhh', b1, 0)
    p1, p2, p3, p4, p5, p6, p7, p8, p9 = struct.unpack_from('<Hhhhhhhhh', b1, 6)
    h1 = b1[25]
    h2, h3 = struct.unpack_from('<hB', b2, 0)
    h4 = (struct.unpack_from('<b', b2, 3)[0] << 4) | (b2[4] & 0x0F)
    h5 = (struct.unpack_from('<b', b2, 5)[0] << 4) | (b2[4] >> 4)
    h6 = struct.unpack_from('<b', b2, 6)[0]
    adc_p = d[0] << 12 | d[1] << 4 | d[2] >> 4
    adc_t = d[3] << 12 | d[4] << 4 | d[5] >> 4
    adc_h = d[6] << 8 | d[7]

    var1 = (adc_t / 16384.0 - t1 / 1024.0) * t2
    var2 = (adc_t / 131072.0 - t1 / 8192.0) ** 2 * t3
    # The datasheet's code casts t_fine to an integer; its worked example (8.2: p = 100653.27 Pa)
    # carries the unrounded 128422.29, which is what is used here.
    t_fine = var1 + var2
    celsius = (var1 + var2) / 5120.0

    var1 = t_fine / 2.0 - 64000.0
    var2 = var1 * var1 * p6 / 32768.0
    var2 = var2 + var1 * p5 * 2.0
    var2 = var2 / 4.0 + p4 * 65536.0
    var1 = (p3 * var1 * var1 / 524288.0 + p2 * var1) / 524288.0
    var1 = (1.0 + var1 / 32768.0) * p1
    pressure = 1048576.0 - adc_p
    pressure = (pressure - var2 / 4096.0) * 6250.0 / var1
    var1 = p9 * pressure * pressure / 2147483648.0
    var2 = pressure * p8 / 32768.0
    pressure = pressure + (var1 + var2 + p7) / 16.0

    humidity = t_fine - 76800.0
    humidity = ((adc_h - (h4 * 64.0 + h5 / 16384.0 * humidity))
                * (h2 / 65536.0 * (1.0 + h6 / 67108864.0 * humidity * (1.0 + h3 / 67108864.0 * humidity))))
    humidity = humidity * (1.0 - h1 * humidity / 524288.0)
    return celsius, pressure, min(100.0, max(0.0, humidity))


# The formulas above reproduce the datasheet's own results for its example.
assert tmp102_celsius(TMP102_TEMPERATURE) == 36.8125
_example = bme280_compensate(BME280_BLOCK_1, BME280_BLOCK_2, BME280_DATA)
assert round(_example[0], 2) == 25.08 and round(_example[1], 2) == 100653.27, _example

# The room chip gets a trimming of its own, unlike the simulated chip's built-in (the datasheet
# example), so the values prove the registers were loaded: dig_T2 26435 -> 26000 (0x6590) in
# block 1, dig_H2 362 -> 380 (0x017C) in block 2.
ROOM_BLOCK_1 = BME280_BLOCK_1.replace('70 6B 43 67', '70 6B 90 65', 1)
ROOM_BLOCK_2 = '7C' + BME280_BLOCK_2[2:]
BODY_CELSIUS, BODY_TOLERANCE = tmp102_celsius(TMP102_TEMPERATURE), 0.01
ROOM_CELSIUS, ROOM_PASCAL, ROOM_HUMIDITY = bme280_compensate(ROOM_BLOCK_1, ROOM_BLOCK_2, BME280_DATA)
assert abs(ROOM_CELSIUS - _example[0]) > 0.3 and abs(ROOM_HUMIDITY - _example[2]) > 0.5, (ROOM_CELSIUS, ROOM_HUMIDITY)


def sensor_yaml(name: str, driver: str, publish: str, simulation: str, extra: str = '') -> str:
    return (f'  - name: {name}\n    driver: {driver}\n{extra}    publish: [{publish}]\n'
            f'    simulation: {{{simulation}}}\n')


BODY_REGISTERS = f'registers: {{0x00: "{TMP102_TEMPERATURE}"}}'
ROOM_REGISTERS = f'registers: {{0x88: "{ROOM_BLOCK_1}", 0xE1: "{ROOM_BLOCK_2}", 0xF7: "{BME280_DATA}"}}'
POLL_1S = '    poll-interval: 1s\n'

# The built-in demo's four sensors, with the body and room chips loaded with the registers above.
REGISTERS_CONFIG = ('board: simulated\nsensors:\n'
                    + sensor_yaml('pulse', 'max30102', 'heart-rate-measurement', 'bpm: 72')
                    + sensor_yaml('body', 'tmp102', 'temperature-measurement, intermediate-temperature', BODY_REGISTERS)
                    + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS)
                    + sensor_yaml('battery', 'max17048', 'battery-level', 'battery-percent: 87'))

FAULT_CONFIG = ('board: simulated\nsensors:\n'
                + sensor_yaml('body', 'tmp102', 'temperature-measurement', BODY_REGISTERS + ', fail-after: 3s', POLL_1S)
                + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS))

ROOM_FAULT_CONFIG = ('board: simulated\nsensors:\n'
                     + sensor_yaml('body', 'tmp102', 'temperature-measurement', BODY_REGISTERS, POLL_1S)
                     + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure',
                                   ROOM_REGISTERS + ', fail-after: 3s', POLL_1S))

# Line 5: a bad I2C address; line 6: a misspelt key.
BAD_CONFIG = """\
board: simulated
sensors:
  - name: body
    driver: tmp102
    address: 0x4g
    poll-intervall: 1s
    publish: [temperature-measurement]
"""


# -- decoding, written from the SIG specifications ---------------------------------------

def ieee11073_float(raw: bytes) -> float:
    """32-bit FLOAT: 8-bit signed exponent, 24-bit signed mantissa; NaN 0x007FFFFF etc."""
    (word,) = struct.unpack('<I', raw)
    mantissa, exponent = word & 0xFFFFFF, word >> 24
    if mantissa in (0x7FFFFF, 0x800000, 0x7FFFFE, 0x800002, 0x800001):
        return math.nan  # NaN, NRes, +INF, -INF, reserved
    if mantissa >= 0x800000:
        mantissa -= 0x1000000
    if exponent >= 0x80:
        exponent -= 0x100
    return mantissa * 10.0 ** exponent


def temperature_measurement(value: bytes) -> float:
    """2A1C / 2A1E: flags (bit 0 Fahrenheit, bit 1 time stamp, bit 2 type), FLOAT."""
    assert len(value) >= 5, value.hex()
    flags = value[0]
    assert flags & 0x01 == 0, f'expected Celsius, flags 0x{flags:02X}'
    expected = 5 + (7 if flags & 0x02 else 0) + (1 if flags & 0x04 else 0)
    assert len(value) == expected, value.hex()
    return ieee11073_float(value[1:5])


def heart_rate_measurement(value: bytes) -> tuple[int, int, list[int]]:
    """2A37 -> (bpm, sensor contact bits, RR-intervals in 1/1024 s)."""
    flags = value[0]
    offset = 1
    if flags & 0x01:
        bpm = struct.unpack_from('<H', value, offset)[0]
        offset += 2
    else:
        bpm = value[offset]
        offset += 1
    if flags & 0x08:
        offset += 2  # energy expended
    rr = []
    if flags & 0x10:
        assert (len(value) - offset) % 2 == 0, value.hex()
        rr = [struct.unpack_from('<H', value, i)[0] for i in range(offset, len(value), 2)]
    else:
        assert offset == len(value), value.hex()
    return bpm, (flags >> 1) & 0x03, rr


def es_temperature(value: bytes) -> float | None:
    assert len(value) == 2, value.hex()
    (raw,) = struct.unpack('<h', value)
    return None if raw == -0x8000 else raw / 100


def es_humidity(value: bytes) -> float | None:
    assert len(value) == 2, value.hex()
    (raw,) = struct.unpack('<H', value)
    return None if raw == 0xFFFF else raw / 100


def es_pressure(value: bytes) -> float:
    assert len(value) == 4, value.hex()
    return struct.unpack('<I', value)[0] / 10


def check_room(temperature: bytes, humidity: bytes, pressure: bytes) -> None:
    """Within the ES resolutions (0.01 °C, 0.01 %RH, 0.1 Pa) plus rounding."""
    assert abs(es_temperature(temperature) - ROOM_CELSIUS) <= 0.006, (temperature.hex(), ROOM_CELSIUS)
    assert abs(es_humidity(humidity) - ROOM_HUMIDITY) <= 0.006, (humidity.hex(), ROOM_HUMIDITY)
    assert abs(es_pressure(pressure) - ROOM_PASCAL) <= 0.06, (pressure.hex(), ROOM_PASCAL)


def registers_config(tmp_path) -> str:
    path = tmp_path / 'registers.yaml'
    path.write_text(REGISTERS_CONFIG)
    return str(path)


# -- helpers -----------------------------------------------------------------------------



async def status(daemon) -> dict:
    code, out, err = await run_cli('status', '--json', '--socket', daemon.control_socket)
    assert code == 0, (code, out, err)
    return json.loads(out)


def sensor(snapshot: dict, name: str) -> dict:
    found = [s for s in snapshot['sensors'] if s['name'] == name]
    assert len(found) == 1, snapshot['sensors']
    return found[0]


async def wait_status(daemon, condition: Callable[[dict], bool], timeout: float, what: str) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        snapshot = await status(daemon)
        if condition(snapshot):
            return snapshot
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f'timed out after {timeout} s waiting for {what}; last status {snapshot}')
        await asyncio.sleep(0.2)


async def start_bridge(harness, spawn_daemon, name: str, *extra: str):
    daemon = await spawn_daemon(harness.port, name, *extra)
    await asyncio.wait_for(harness.controller.wait_for_advertising_enable(True), 10)
    await daemon.wait_for_log('advertising enabled', timeout=5)
    return daemon


async def connect_and_discover(harness, central, spawn_daemon, name: str, *extra: str):
    daemon = await start_bridge(harness, spawn_daemon, name, *extra)
    record = await central.scan_for(None, timeout=5)
    connection = await central.connect(record.address, timeout=5)
    # The daemon logs "central connected: link#N handle H peripheral peer ADDRESS (type) ...".
    await daemon.wait_for_log(f'peer {central.address}', timeout=5)
    peer = Peer(connection)
    session = Session(central, record, connection, peer, ClientTap(peer.gatt_client))
    await session.discover()
    return daemon, session


class Timed:
    """A subscriber recording (arrival time, value)."""

    def __init__(self) -> None:
        self.values: list[tuple[float, bytes]] = []

    def __call__(self, value: bytes) -> None:
        self.values.append((asyncio.get_running_loop().time(), bytes(value)))

    def __len__(self) -> int:
        return len(self.values)


async def subscribe(session: Session, daemon, characteristic: CharacteristicProxy, label: str,
                    prefer_notify: bool = True) -> Timed:
    timed = Timed()
    await asyncio.wait_for(session.peer.subscribe(characteristic, timed, prefer_notify=prefer_notify), 5)
    await daemon.wait_for_log(f'subscribed {session.central.address} {label}', timeout=5)
    return timed


def intervals(times: list[float]) -> list[float]:
    return [after - before for before, after in zip(times, times[1:])]


# -- 1. discovery, reads, notifications, indications ---------------------------------------

async def test_simulated_board_serves_every_service_with_the_scripted_values(harness, central, spawn_daemon, tmp_path):
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-demo',
                                                  '--config', registers_config(tmp_path))
    services = {s.uuid: s for s in session.peer.services}
    assert set(services) == {GAP, GATT, *SENSOR_SERVICES}, sorted(str(u) for u in services)
    for uuid, characteristics in SENSOR_SERVICES.items():
        found = [c.uuid for c in services[uuid].characteristics]
        assert len(found) == len(set(found)), (uuid, found)
        assert set(found) == characteristics, (str(uuid), [str(u) for u in found])
    for service in session.peer.services:
        for characteristic in service.characteristics:
            has_cccd = characteristic.get_descriptor(CCCD) is not None
            subscribable = bool(characteristic.properties & (0x10 | 0x20))
            assert has_cccd == subscribable, (str(characteristic.uuid), characteristic.properties)
            if characteristic.uuid in SUBSCRIBABLE:
                assert subscribable, str(characteristic.uuid)
    c = session.characteristic
    assert c(HRM).properties & 0x10 and not c(HRM).properties & 0x02  # notify, not readable
    assert c(TEMPERATURE_MEASUREMENT).properties & 0x20  # indicate
    assert c(INTERMEDIATE).properties & 0x10  # notify
    assert c(MEASUREMENT_INTERVAL).properties & (0x02 | 0x08 | 0x20) == 0x2A  # read, write, indicate
    for uuid in (ES_TEMPERATURE, HUMIDITY, PRESSURE):
        assert c(uuid).properties & (0x02 | 0x10) == 0x12, str(uuid)  # read, notify
        for descriptor in (ES_MEASUREMENT, ES_TRIGGER):
            assert c(uuid).get_descriptor(descriptor) is not None, (str(uuid), str(descriptor))
    assert c(MEASUREMENT_INTERVAL).get_descriptor(VALID_RANGE) is not None

    # Reads, decoded here.
    assert await session.read(c(LOCATION)) == b'\x03'  # finger
    assert await session.read(c(TEMPERATURE_TYPE)) == b'\x02'  # body (general)
    assert struct.unpack('<H', await session.read(c(MEASUREMENT_INTERVAL))) == (1,)
    assert await session.read(c(MEASUREMENT_INTERVAL).get_descriptor(VALID_RANGE)) == bytes.fromhex('01001' '00e')
    check_room(await session.read(c(ES_TEMPERATURE)), await session.read(c(HUMIDITY)),
               await session.read(c(PRESSURE)))
    for uuid in (ES_TEMPERATURE, HUMIDITY, PRESSURE):
        measurement = await session.read(c(uuid).get_descriptor(ES_MEASUREMENT))
        assert len(measurement) == 11, (str(uuid), measurement.hex())
        trigger = await session.read(c(uuid).get_descriptor(ES_TRIGGER))
        # Fixed time interval, the poll interval (1 s) as uint24 seconds.
        assert trigger == b'\x01' + (1).to_bytes(3, 'little'), (str(uuid), trigger.hex())
    assert await session.read(c(BATTERY_LEVEL)) == bytes([87])
    assert await session.read(c(MANUFACTURER)) == b'blesensor'
    assert await session.read(c(MODEL)) == b'Simulated board'
    assert await session.read(c(FIRMWARE)) == b'0.8.0'
    assert await session.read(c(SOFTWARE)) == b'0.8.0'
    pnp = await session.read(c(PNP_ID))
    assert len(pnp) == 7 and pnp[0] in (1, 2), pnp.hex()
    # Reading the notify-only measurement is refused.
    code = await session.att_error_of(session.client.read_value(c(HRM).handle))
    assert code == att.ATT_READ_NOT_PERMITTED_ERROR, f'0x{code:02X}'

    # Subscriptions.
    heart = await subscribe(session, daemon, c(HRM), '2A37 notify')
    body = await subscribe(session, daemon, c(TEMPERATURE_MEASUREMENT), '2A1C indicate', prefer_notify=False)
    intermediate = await subscribe(session, daemon, c(INTERMEDIATE), '2A1E notify')
    room = {}
    for uuid, label in ((ES_TEMPERATURE, '2A6E'), (HUMIDITY, '2A6F'), (PRESSURE, '2A6D')):
        room[uuid] = await subscribe(session, daemon, c(uuid), f'{label} notify')

    tap = session.tap
    await tap.wait_for(
        lambda: len(heart) >= 3 and len(body) >= 2 and len(intermediate) >= 2
        and all(len(r) >= 2 for r in room.values()),
        10, '3 heart rate notifications, 2 temperature indications and 2 of each other')

    print('2A37', [v.hex() for _, v in heart.values], '2A1C', [v.hex() for _, v in body.values],
          '2A6E/2A6F/2A6D', [[v.hex() for _, v in r.values] for r in room.values()])
    for _, value in heart.values:
        bpm, contact, rr = heart_rate_measurement(value)
        assert abs(bpm - 72) <= 3, value.hex()
        assert contact == 0x03, f'sensor contact not supported+detected: {value.hex()}'
        assert rr, f'no RR-interval: {value.hex()}'
        for interval in rr:
            assert abs(interval - 853) <= 15, (interval, value.hex())
    for _, value in body.values:
        assert abs(temperature_measurement(value) - BODY_CELSIUS) <= BODY_TOLERANCE, value.hex()
    for _, value in intermediate.values:
        assert abs(temperature_measurement(value) - BODY_CELSIUS) <= BODY_TOLERANCE, value.hex()
    # Indications, not notifications, on 2A1C; each confirmed by Bumble.
    handle = c(TEMPERATURE_MEASUREMENT).handle
    assert tap.indications[handle] and not tap.notifications[handle]
    assert tap.sent_opcodes.count(HANDLE_VALUE_CONFIRMATION) >= len(tap.indications[handle])
    assert not tap.indications[c(HRM).handle] and tap.notifications[c(HRM).handle]
    for (_, t), (_, h), (_, p) in zip(*(room[u].values for u in (ES_TEMPERATURE, HUMIDITY, PRESSURE))):
        check_room(t, h, p)
    assert daemon.process.returncode is None


# -- 2. Measurement Interval ----------------------------------------------------------------

async def test_measurement_interval_write_changes_the_indication_rate(harness, central, spawn_daemon, tmp_path):
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-interval',
                                                  '--config', registers_config(tmp_path))
    c = session.characteristic
    interval = c(MEASUREMENT_INTERVAL)
    body = await subscribe(session, daemon, c(TEMPERATURE_MEASUREMENT), '2A1C indicate', prefer_notify=False)
    changes = await subscribe(session, daemon, interval, '2A21 indicate', prefer_notify=False)

    # Default: one indication a second.
    await session.tap.wait_for(lambda: len(body) >= 4, 8, '4 temperature indications')
    default = intervals([t for t, _ in body.values[-4:]])
    assert all(abs(d - 1.0) <= 0.4 for d in default), default

    # Out of range: refused with 0xFF, nothing changes.
    for bad in (0, 3601):
        code = await session.att_error_of(session.client.write_value(interval, struct.pack('<H', bad), True))
        assert code == OUT_OF_RANGE, f'writing {bad}: 0x{code:02X}'
        assert struct.unpack('<H', await session.read(interval)) == (1,)
    assert len(changes) == 0, f'2A21 indicated after refused writes: {changes.values}'
    before = len(body)
    await session.tap.wait_for(lambda: len(body) >= before + 2, 4, 'indications still at 1 s')
    assert abs(body.values[-1][0] - body.values[-2][0] - 1.0) <= 0.4

    # 3 s.
    await session.write(interval, struct.pack('<H', 3))
    written_at = asyncio.get_running_loop().time()
    await session.tap.wait_for(lambda: len(changes) >= 1, 5, 'the 2A21 indication of the new interval')
    assert changes.values[0][1] == b'\x03\x00', changes.values
    assert session.tap.indications[interval.handle] == [b'\x03\x00']
    assert struct.unpack('<H', await session.read(interval)) == (3,)

    # The indications after the write: let the first one (the re-poll) settle, then measure.
    await session.tap.wait_for(
        lambda: len([t for t, _ in body.values if t > written_at]) >= 3, 12,
        '3 temperature indications after writing 3 s')
    after = [t for t, _ in body.values if t > written_at]
    slow = intervals(after)
    print(f'2A1C intervals at 1 s: {default}; after writing 3 s: {slow}')
    assert all(abs(d - 3.0) <= 0.6 for d in slow), slow
    assert all(abs(temperature_measurement(v) - BODY_CELSIUS) <= BODY_TOLERANCE for _, v in body.values)
    assert len(changes) == 1


# -- Heart Rate Control Point and ES Trigger Setting ---------------------------------------

async def test_heart_rate_control_point_and_es_trigger_setting_writes(harness, central, spawn_daemon, tmp_path):
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-writes',
                                                  '--config', registers_config(tmp_path))
    c = session.characteristic
    control_point = c(HR_CONTROL_POINT)
    await session.write(control_point, b'\x01')  # reset energy expended
    code = await session.att_error_of(session.client.write_value(control_point, b'\x02', True))
    assert code == 0x80, f'0x{code:02X}'  # Control Point Not Supported

    temperature = await subscribe(session, daemon, c(ES_TEMPERATURE), '2A6E notify')
    humidity = await subscribe(session, daemon, c(HUMIDITY), '2A6F notify')
    await session.tap.wait_for(lambda: len(temperature) >= 1 and len(humidity) >= 1, 5,
                               'a notification of 2A6E and 2A6F')
    trigger = c(ES_TEMPERATURE).get_descriptor(ES_TRIGGER)
    original = await session.read(trigger)
    await session.write(trigger, b'\x03')  # value changed
    assert await session.read(trigger) == b'\x03'
    # The simulated room temperature is constant: with "value changed" 2A6E falls silent while
    # 2A6F keeps its fixed 1 s interval (ESS 3.1.2.2 trigger conditions are per characteristic).
    # (A notification already queued when the write arrived may still come just after it.)
    written_at, count = asyncio.get_running_loop().time(), len(humidity)
    await session.tap.wait_for(lambda: len(humidity) >= count + 3, 5, '3 more humidity notifications')
    late = [(t - written_at, v.hex()) for t, v in temperature.values if t > written_at + 0.2]
    assert not late, f'2A6E notified an unchanged value under "value changed": {late}'
    code = await session.att_error_of(session.client.write_value(trigger, b'\x0a', True))
    assert code == 0x81, f'0x{code:02X}'  # Condition not supported
    assert await session.read(trigger) == b'\x03', 'a refused trigger setting changed the value'
    # The other characteristics' settings are their own.
    assert await session.read(c(HUMIDITY).get_descriptor(ES_TRIGGER)) == original
    # Still serving.
    check_room(await session.read(c(ES_TEMPERATURE)), await session.read(c(HUMIDITY)),
               await session.read(c(PRESSURE)))
    assert daemon.process.returncode is None


# -- 3. invalid configuration ---------------------------------------------------------------

EXPECTED_PROBLEMS = [
    'sensors[0].address (line 5): 0x4g is not an I2C address (use 0x03…0x77, e.g. 0x48)',
    "sensors[0].poll-intervall (line 6): unknown key 'poll-intervall'; did you mean 'poll-interval'?",
]


async def test_an_invalid_configuration_is_refused_with_its_problems(harness, spawn_daemon, tmp_path):
    path = tmp_path / 'bad.yaml'
    path.write_text(BAD_CONFIG)

    daemon = await spawn_daemon(harness.port, 'bridge-bad', '--config', str(path))
    # EX_CONFIG, which the unit does not restart on.
    assert await daemon.wait_exit(10) == 78
    log = daemon.log
    assert f'refusing to start: 2 problem(s) in {path}' in log, log
    for problem in EXPECTED_PROBLEMS:
        assert problem in log, f'{problem!r} not logged:\n{log}'
    assert 'advertising enabled' not in log

    code, out, err = await run_cli('config', 'check', str(path))
    assert code == 1, (code, out, err)
    lines = err.splitlines()
    assert f'{path}: 2 problems:' in lines, err
    for problem in EXPECTED_PROBLEMS:
        assert f'  {problem}' in lines, f'{problem!r} not in:\n{err}'

    good = tmp_path / 'good.yaml'
    good.write_text(FAULT_CONFIG)
    code, out, err = await run_cli('config', 'check', str(good))
    assert code == 0, (code, out, err)


# -- 4. a sensor fault ------------------------------------------------------------------------

async def test_a_failed_tmp102_shows_in_status_and_over_the_air_while_the_bme280_keeps_serving(
        harness, central, spawn_daemon, tmp_path):
    path = tmp_path / 'fault.yaml'
    path.write_text(FAULT_CONFIG)
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-fault',
                                                  '--config', str(path))
    c = session.characteristic
    body = await subscribe(session, daemon, c(TEMPERATURE_MEASUREMENT), '2A1C indicate', prefer_notify=False)
    room = {}
    for uuid, label in ((ES_TEMPERATURE, '2A6E'), (HUMIDITY, '2A6F'), (PRESSURE, '2A6D')):
        room[uuid] = await subscribe(session, daemon, c(uuid), f'{label} notify')

    # Good values first, then one NaN once the sensor fails (3 s after start).
    await session.tap.wait_for(
        lambda: any(math.isnan(temperature_measurement(v)) for _, v in body.values), 8,
        'the NaN temperature indication')
    values = [v for _, v in body.values]
    nan_index = next(i for i, v in enumerate(values) if math.isnan(temperature_measurement(v)))
    assert values[nan_index][1:5] == bytes.fromhex('ffff7f00'), values[nan_index].hex()  # 0x007FFFFF
    for value in values[:nan_index]:
        assert abs(temperature_measurement(value) - BODY_CELSIUS) <= BODY_TOLERANCE, value.hex()
    faulted_at = body.values[nan_index][0]

    snapshot = await wait_status(daemon, lambda s: sensor(s, 'body')['state'] == 'failed', 5,
                                 'body to be failed in status')
    body_status, room_status = sensor(snapshot, 'body'), sensor(snapshot, 'room')
    assert body_status['value'] is None, body_status
    assert isinstance(body_status['error'], str) and body_status['error'], body_status
    assert body_status['failures'] >= 1, body_status
    assert room_status['state'] == 'ok' and room_status['error'] is None, room_status
    assert abs(room_status['value'] - ROOM_CELSIUS) <= 0.01, room_status
    reads = room_status['reads']

    # The room keeps notifying after the fault; the body sends no more NaNs. Counted, not timed: on a
    # busy machine the two may arrive within a second of the fault.
    counts = {uuid: len(r) for uuid, r in room.items()}
    await session.tap.wait_for(lambda: all(len(room[u]) >= counts[u] + 2 for u in room), 5,
                               '2 more notifications of each ES characteristic after the fault')
    for uuid, r in room.items():
        assert sum(1 for t, _ in r.values if t > faulted_at) >= 2, str(uuid)
    for (_, t), (_, h), (_, p) in zip(*(room[u].values for u in (ES_TEMPERATURE, HUMIDITY, PRESSURE))):
        check_room(t, h, p)
    nans = [v for v in (v for _, v in body.values) if math.isnan(temperature_measurement(v))]
    assert len(nans) == 1, [v.hex() for _, v in body.values]
    assert all(abs(temperature_measurement(v) - BODY_CELSIUS) <= BODY_TOLERANCE
               for _, v in body.values[nan_index + 1:]), 'a good value after the fault'

    later = await wait_status(daemon, lambda s: sensor(s, 'room')['reads'] > reads, 5, 'room reads to increase')
    assert sensor(later, 'room')['state'] == 'ok'
    assert sensor(later, 'body')['state'] == 'failed' and sensor(later, 'body')['value'] is None
    await daemon.wait_for_log('sensor body: ', timeout=2)
    assert daemon.process.returncode is None


async def test_a_failed_bme280_sends_unknown_once_while_the_tmp102_keeps_serving(
        harness, central, spawn_daemon, tmp_path):
    path = tmp_path / 'room-fault.yaml'
    path.write_text(ROOM_FAULT_CONFIG)
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-room-fault',
                                                  '--config', str(path))
    c = session.characteristic
    body = await subscribe(session, daemon, c(TEMPERATURE_MEASUREMENT), '2A1C indicate', prefer_notify=False)
    temperature = await subscribe(session, daemon, c(ES_TEMPERATURE), '2A6E notify')
    humidity = await subscribe(session, daemon, c(HUMIDITY), '2A6F notify')

    await session.tap.wait_for(
        lambda: b'\x00\x80' in [v for _, v in temperature.values]
        and b'\xff\xff' in [v for _, v in humidity.values], 8, 'the unknown ES temperature and humidity')
    faulted_at = max(t for t, v in temperature.values if v == b'\x00\x80')
    count = len(body)
    await session.tap.wait_for(lambda: len(body) >= count + 2, 5, '2 more temperature indications after the fault')
    assert sum(1 for t, _ in body.values if t > faulted_at) >= 2, 'the TMP102 keeps indicating after the fault'
    for _, value in body.values:
        assert abs(temperature_measurement(value) - BODY_CELSIUS) <= BODY_TOLERANCE, value.hex()
    temperatures = [v for _, v in temperature.values]
    humidities = [v for _, v in humidity.values]
    assert temperatures.count(b'\x00\x80') == 1, [v.hex() for v in temperatures]
    assert humidities.count(b'\xff\xff') == 1, [v.hex() for v in humidities]
    for value in temperatures[:temperatures.index(b'\x00\x80')]:
        assert abs(es_temperature(value) - ROOM_CELSIUS) <= 0.006, value.hex()

    snapshot = await wait_status(daemon, lambda s: sensor(s, 'room')['state'] == 'failed', 5, 'room failed')
    assert sensor(snapshot, 'room')['value'] is None and sensor(snapshot, 'room')['error']
    assert sensor(snapshot, 'body')['state'] == 'ok'


# -- 5. status -----------------------------------------------------------------------------

async def test_status_reports_every_field_with_a_subscribed_central(harness, central, spawn_daemon, tmp_path):
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-status',
                                                  '--config', registers_config(tmp_path))
    c = session.characteristic
    heart = await subscribe(session, daemon, c(HRM), '2A37 notify')
    body = await subscribe(session, daemon, c(TEMPERATURE_MEASUREMENT), '2A1C indicate', prefer_notify=False)
    room = await subscribe(session, daemon, c(ES_TEMPERATURE), '2A6E notify')
    await session.tap.wait_for(lambda: len(heart) >= 1 and len(body) >= 1 and len(room) >= 1, 8,
                               'a notification of 2A37 and 2A6E and an indication of 2A1C')

    snapshot = await wait_status(daemon, lambda s: s['centrals'] and s['centrals'][0]['sent'] > 0, 5,
                                 'the central to have been sent something')
    for key in ('transport', 'address', 'advertising', 'uptimeSeconds', 'board', 'deviceName',
                'centrals', 'sensors'):
        assert key in snapshot, (key, snapshot)
    assert snapshot['transport'].startswith('tcp:'), snapshot['transport']
    assert isinstance(snapshot['address'], str) and snapshot['address']
    assert isinstance(snapshot['advertising'], bool)
    assert isinstance(snapshot['uptimeSeconds'], (int, float)) and snapshot['uptimeSeconds'] > 0
    assert snapshot['board'] == 'simulated'
    assert snapshot['deviceName'] == 'bridge-status'

    assert len(snapshot['centrals']) == 1, snapshot['centrals']
    entry = snapshot['centrals'][0]
    for key in ('address', 'addressType', 'mtu', 'security', 'subscriptions', 'sent', 'coalesced',
                'dropped', 'queued'):
        assert key in entry, (key, entry)
    assert entry['address'].upper() == central.address.upper(), entry
    assert isinstance(entry['addressType'], str) and entry['addressType']
    assert isinstance(entry['mtu'], int) and entry['mtu'] >= 23
    assert isinstance(entry['security'], str)
    for expected in ('2A37 notify', '2A1C indicate', '2A6E notify'):
        assert expected in entry['subscriptions'], entry['subscriptions']
    for key in ('sent', 'coalesced', 'dropped', 'queued'):
        assert isinstance(entry[key], int) and not isinstance(entry[key], bool) and entry[key] >= 0, (key, entry)
    assert entry['sent'] > 0

    assert [s['name'] for s in snapshot['sensors']] == ['pulse', 'body', 'room', 'battery']
    drivers = {s['name']: s['driver'] for s in snapshot['sensors']}
    assert drivers == {'pulse': 'max30102', 'body': 'tmp102', 'room': 'bme280', 'battery': 'max17048'}
    for s in snapshot['sensors']:
        for key in ('name', 'driver', 'value', 'unit', 'ageSeconds', 'state', 'error', 'readings', 'reads',
                    'failures'):
            assert key in s, (key, s)
        assert s['state'] in ('starting', 'ok', 'no-signal', 'paused', 'failed'), s
        assert isinstance(s['reads'], int) and isinstance(s['failures'], int), s
        assert isinstance(s['readings'], list), s
    # Notifications of all three arrived, so each sensor is current.
    values = {s['name']: s for s in snapshot['sensors']}
    assert values['pulse']['state'] == 'ok' and abs(values['pulse']['value'] - 72) <= 3, values['pulse']
    assert values['body']['state'] == 'ok'
    assert abs(values['body']['value'] - BODY_CELSIUS) <= BODY_TOLERANCE, values['body']
    assert values['room']['state'] == 'ok' and abs(values['room']['value'] - ROOM_CELSIUS) <= 0.01
    assert values['battery']['state'] == 'ok' and values['battery']['value'] == 87
    for s in values.values():
        assert s['error'] is None and s['reads'] > 0, s

    code, out, err = await run_cli('status', '--socket', daemon.control_socket)
    assert code == 0, (code, out, err)
    assert 'bridge-status' in out, out
    assert central.address.upper() in out.upper(), out
    for name in ('pulse', 'body', 'room', 'battery'):
        assert name in out, out
    assert '2A37 notify' in out, out

    # The connection is unaffected by the control socket.
    count = len(heart)
    await session.tap.wait_for(lambda: len(heart) > count, 5, 'another heart rate notification')


async def test_status_without_a_daemon_says_it_is_not_running(blesensord):
    for extra in ((), ('--json',)):
        code, out, err = await run_cli('status', *extra, '--socket', '/nonexistent/x.sock')
        assert code != 0, (code, out, err)
        assert 'not running' in err, (out, err)
        assert '/nonexistent/x.sock' in err, err


# -- 6. SHT4x heater ------------------------------------------------------------------------

HEATER_CONFIG = """\
board: simulated
sensors:
  - name: cellar
    driver: sht4x
    poll-interval: 500ms
    options: {heater: {power: 200mw, pulse: 100ms, every: 3s, cool-down: 1s}}
    publish: [es-temperature, humidity]
    simulation: {celsius: 12, humidity: 92}
"""


async def test_sht4x_heater_pulses_pause_the_sensor_and_nothing_hot_goes_over_the_air(
        harness, central, spawn_daemon, tmp_path):
    path = tmp_path / 'heater.yaml'
    path.write_text(HEATER_CONFIG)
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-heater', '--config', str(path))
    c = session.characteristic
    temperature = await subscribe(session, daemon, c(ES_TEMPERATURE), '2A6E notify')
    humidity = await subscribe(session, daemon, c(HUMIDITY), '2A6F notify')

    # A pulse every 3 s: status shows it as paused, with the last ambient values kept.
    paused = await wait_status(daemon, lambda s: sensor(s, 'cellar')['state'] == 'paused', 8, 'a heater pause')
    cellar = sensor(paused, 'cellar')
    assert 'heater' in cellar['error'], cellar
    assert cellar['value'] is not None and abs(cellar['value'] - 12) <= 0.02, cellar
    resumed = await wait_status(daemon, lambda s: sensor(s, 'cellar')['state'] == 'ok', 5, 'ambient readings again')
    assert sensor(resumed, 'cellar')['failures'] == 0, sensor(resumed, 'cellar')
    await daemon.wait_for_log('sensor cellar: heater pulse (200 mW for 100 ms)', timeout=5)

    # The die reads ~32 °C at the end of a 200 mW pulse (the simulated rise); only the room went out.
    await session.tap.wait_for(lambda: len(temperature) >= 2 and len(humidity) >= 1, 5, 'ES notifications')
    temperatures = [es_temperature(v) for _, v in temperature.values]
    humidities = [es_humidity(v) for _, v in humidity.values]
    assert all(t is not None and abs(t - 12) <= 0.02 for t in temperatures), temperatures
    assert all(h is not None and abs(h - 92) <= 0.02 for h in humidities), humidities
    assert daemon.process.returncode is None
