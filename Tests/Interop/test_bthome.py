"""BTHome v2 broadcasts end to end: blesensord on the simulated board with `broadcast:`, a Bumble
observer scanning passively on the virtual radio, and Home Assistant's own parser (PyPI
`bthome-ble`) decoding what it hears: the simulated chips' values, units, increasing packet ids,
an encrypted broadcast that opens with the bindkey (and not with another) and whose counter keeps
increasing across a daemon that was killed. AES-CCM is also checked here against Python
`cryptography`'s AESCCM, an implementation independent of ours."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time

from bumble import hci
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

from bthome_ble.parser import BTHomeBluetoothDeviceData
from habluetooth import BluetoothServiceInfoBleak

from harness.cli import run_cli
from test_sensor_bridge import (
    ROOM_CELSIUS, ROOM_HUMIDITY, ROOM_PASCAL, ROOM_REGISTERS, BODY_REGISTERS, sensor_yaml,
)

BTHOME_UUID = '0000fcd2-0000-1000-8000-00805f9b34fb'
BINDKEY = bytes.fromhex('231d39c1d7cc1ab1aee224cd096db932')
POLL = '    poll-interval: 200ms\n'
BATTERY_PERCENT = 87

# The room chip and a battery gauge are broadcast; the body thermometer is health data and stays out.
SENSORS = ('board: simulated\nsensors:\n'
           + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS, POLL)
           + sensor_yaml('battery', 'max17048', 'battery-level', f'battery-percent: {BATTERY_PERCENT}', POLL)
           + sensor_yaml('body', 'tmp102', 'temperature-measurement', BODY_REGISTERS, POLL))


@dataclasses.dataclass
class Heard:
    address: str
    event_type: int
    data: bytes

    def structures(self) -> list[tuple[int, bytes]]:
        result, index = [], 0
        while index < len(self.data) and self.data[index] != 0:
            length = self.data[index]
            result.append((self.data[index + 1], self.data[index + 2:index + 1 + length]))
            index += 1 + length
        return result

    @property
    def service_data(self) -> bytes | None:
        for kind, value in self.structures():
            if kind == 0x16 and value[:2] == b'\xd2\xfc':
                return value[2:]
        return None


class Observer:
    """Every advertisement (not scan response) of one advertiser, as reported, in order."""

    def __init__(self, central) -> None:
        self.central = central
        self.heard: list[Heard] = []
        self.changed = asyncio.Event()
        central.device.host.on('advertising_report', self._on_report)

    def _on_report(self, report) -> None:
        if report.event_type == 0x04:  # SCAN_RSP: passive scanners never get one
            return
        self.heard.append(Heard(report.address.to_string(with_type_qualifier=False), int(report.event_type), bytes(report.data)))
        self.changed.set()

    async def packets(self, count: int, after: int = 0, timeout: float = 20.0) -> list[Heard]:
        """The first `count` distinct BTHome advertisements (data or type) heard after index `after`."""
        async def wait() -> list[Heard]:
            while True:
                distinct: list[Heard] = []
                for item in self.heard[after:]:
                    if item.service_data is not None and (not distinct or (distinct[-1].data, distinct[-1].event_type)
                                                          != (item.data, item.event_type)):
                        distinct.append(item)
                if len(distinct) >= count:
                    return distinct[:count]
                self.changed.clear()
                await self.changed.wait()
        return await asyncio.wait_for(wait(), timeout)

    async def until(self, done, after: int = 0, timeout: float = 20.0) -> list[Heard]:
        """The distinct BTHome advertisements heard after index `after`, up to the first for which
        `done` holds (the daemon sends a new packet only when the values change)."""
        count = 1
        while True:
            packets = await self.packets(count, after, timeout)
            if done(packets[-1]):
                return packets
            count += 1


def service_info(heard: Heard, time_seen: float | None = None) -> BluetoothServiceInfoBleak:
    return BluetoothServiceInfoBleak(
        name='blesensor-bthome', address=heard.address, rssi=-60, manufacturer_data={},
        service_data={BTHOME_UUID: heard.service_data}, service_uuids=[BTHOME_UUID], source='local',
        device=None, advertisement=None, connectable=True, time=time.monotonic() if time_seen is None else time_seen, tx_power=None,
    )


def decode(parser: BTHomeBluetoothDeviceData, heard: Heard, time_seen: float | None = None) -> dict[str, tuple[float, str | None]]:
    """Home Assistant's view of one advertisement: entity key -> (value, unit)."""
    update = parser.update(service_info(heard, time_seen))
    return {key.key: (value.native_value, update.entity_descriptions[key].native_unit_of_measurement)
            for key, value in update.entity_values.items()}


def carries(*keys: str, bindkey: bytes | None = None):
    """Whether an advertisement carries all of `keys` (decoded by a parser that saw nothing before)."""
    return lambda heard: set(keys) <= decode(BTHomeBluetoothDeviceData(bindkey=bindkey), heard).keys()


async def start(spawn_daemon, harness, central, tmp_path, broadcast: str, state: str = 'state'):
    config = tmp_path / 'bthome.yaml'
    config.write_text(SENSORS + broadcast)
    observer = Observer(central)
    daemon = await spawn_daemon(harness.port, 'blesensor-bthome', '--config', str(config), '--state-dir', str(tmp_path / state))
    await daemon.wait_for_log('advertising enabled', timeout=10)
    await central.start_scanning(active=False)
    return daemon, observer


async def test_home_assistant_decodes_the_simulated_values(harness, central, spawn_daemon, tmp_path):
    daemon, observer = await start(spawn_daemon, harness, central, tmp_path, 'broadcast: bthome\n')
    # A new packet only when the values change: the room chip's, then with the battery's.
    packets = await observer.until(carries('temperature', 'battery'))
    ids = []
    for heard in packets:
        # Connectable for phones, flags present, the device info byte says v2 in clear.
        assert heard.event_type == 0x00, heard
        assert (0x01, b'\x06') in heard.structures()
        assert heard.service_data[0] == 0x40
        ids.append(heard.service_data[2])
    # Increasing from a random start, modulo 256 (as bthome-ble compares them).
    assert all(0 < (later - earlier) % 256 < 64 for earlier, later in zip(ids, ids[1:])), ids
    values = decode(BTHomeBluetoothDeviceData(), packets[-1])
    assert values['temperature'] == (round(ROOM_CELSIUS, 2), '°C'), values
    assert abs(values['humidity'][0] - ROOM_HUMIDITY) <= 0.005 and values['humidity'][1] == '%', values
    assert abs(values['pressure'][0] - ROOM_PASCAL / 100) <= 0.005 and values['pressure'][1] == 'mbar', values
    assert values['battery'] == (BATTERY_PERCENT, '%'), values
    # The body thermometer is health data: not broadcast without health-sensors.
    assert [key for key in values if key.startswith('temperature')] == ['temperature'], values
    # The device is still there for phones: the UUIDs fit beside a clear packet.
    await central.stop_scanning()
    record = await central.scan_for(None, timeout=5)
    assert record.advertising_data and b'\x1a\x18' in record.advertising_data
    status = await daemon_status(daemon)
    bthome = next(e for e in status['exporters'] if e['name'] == 'bthome')
    assert bthome['state'] == 'running' and bthome['sent'] >= 1
    assert bthome['endpoint'] == 'BTHome v2 service data 0xFCD2 (not encrypted)'
    code, out, err = await run_cli('config', 'check', str(tmp_path / 'bthome.yaml'))
    assert code == 0 and 'broadcasts BTHome v2 (not encrypted) from room, battery' in out, (out, err)


async def daemon_status(daemon) -> dict:
    code, out, err = await run_cli('status', '--json', '--socket', daemon.control_socket)
    assert code == 0, err
    return json.loads(out)


async def test_encrypted_broadcasts_open_with_the_bindkey_and_the_counter_survives_a_kill(
        harness, central, spawn_daemon, tmp_path):
    key_file = tmp_path / 'bthome.key'
    key_file.write_text(BINDKEY.hex() + '\n')
    key_file.chmod(0o600)
    broadcast = f'broadcast:\n  bindkey-file: {key_file}\n'
    daemon, observer = await start(spawn_daemon, harness, central, tmp_path, broadcast)
    packets = await observer.until(carries('temperature', 'battery', bindkey=BINDKEY))
    parser = BTHomeBluetoothDeviceData(bindkey=BINDKEY)
    counters = []
    for heard in packets:
        data = heard.service_data
        assert data[0] == 0x41 and heard.event_type == 0x00
        counters.append(int.from_bytes(data[-8:-4], 'little'))
        values = decode(parser, heard)
        assert parser.bindkey_verified, heard
    # The last packet carries both sensors (earlier ones may come before one was read).
    assert values['temperature'] == (round(ROOM_CELSIUS, 2), '°C'), values
    assert values['battery'] == (BATTERY_PERCENT, '%'), values
    assert counters == sorted(counters) and len(set(counters)) == len(counters), counters
    # A new state directory: the counter starts at the clock's Unix seconds, not 0 (a lost
    # directory must not make the counters sent before under this bindkey come again).
    await daemon.wait_for_log('counting from the clock', timeout=10)
    # A full packet: the service UUIDs and the name went to the scan response.
    await central.stop_scanning()
    record = await central.scan_for(None, timeout=5)
    assert b'blesensor-bthome' in record.scan_response

    wrong = BTHomeBluetoothDeviceData(bindkey=bytes(16))
    assert decode(wrong, packets[-1]).get('temperature') is None
    assert not wrong.bindkey_verified

    # Killed, not stopped: the counter on disk was reserved ahead, so the next run goes on above.
    await daemon.kill()
    mark = len(observer.heard)
    daemon = await spawn_daemon(harness.port, 'blesensor-bthome', '--config', str(tmp_path / 'bthome.yaml'),
                                '--state-dir', str(tmp_path / 'state'))
    await daemon.wait_for_log('advertising enabled', timeout=10)
    await central.start_scanning(active=False)
    again = await observer.until(carries('temperature', 'battery', bindkey=BINDKEY), after=mark)
    later = [int.from_bytes(h.service_data[-8:-4], 'little') for h in again]
    assert later[0] > counters[-1] and later == sorted(later) and len(set(later)) == len(later), (counters, later)
    # Home Assistant, which saw the first run, accepts the second: the counter only increased. Seen
    # as more than 4 s after the first run's last packet, whatever the restart took here: within 4 s
    # the parser also filters on the packet id, which starts afresh.
    assert decode(parser, again[-1], time_seen=parser.last_service_info.time + 5)['temperature'] == (round(ROOM_CELSIUS, 2), '°C')
    assert parser.bindkey_verified


def test_our_ccm_matches_python_cryptography():
    """bthome.io's example through Python cryptography's AESCCM: the bytes our Swift unit test
    (BTHomePacketTests.encryptedAsBTHomeIOExample) expects from our implementation."""
    nonce = bytes.fromhex('5448e68f80a5') + b'\xd2\xfc\x41' + bytes.fromhex('00112233')
    sealed = AESCCM(BINDKEY, tag_length=4).encrypt(nonce, bytes.fromhex('02ca0903bf13'), None)
    assert sealed.hex() == 'a47266c95f73' + '78237214'


async def test_the_broadcast_goes_on_not_connectable_while_every_slot_is_taken(
        harness, central, second_central, spawn_daemon, tmp_path):
    daemon, observer = await start(spawn_daemon, harness, second_central, tmp_path,
                                   'advertising: {max-centrals: 1}\nbroadcast: bthome\n')
    await observer.packets(1)
    record = await central.scan_for(None, timeout=5)
    connection = await central.connect(record.address)
    await daemon.wait_for_log('broadcasting, not connectable', timeout=10)
    mark = len(observer.heard)
    packets = await observer.until(lambda h: h.event_type == 0x03 and carries('battery')(h), after=mark)  # ADV_NONCONN_IND
    nonconnectable = [h for h in packets if h.event_type == 0x03]
    parser = BTHomeBluetoothDeviceData()
    assert decode(parser, nonconnectable[-1])['battery'] == (BATTERY_PERCENT, '%')
    # The central leaves: connectable again.
    await central.disconnect(connection)
    await daemon.wait_for_log('advertising enabled', timeout=10, occurrences=2)
    mark = len(observer.heard)
    again = await observer.until(lambda h: h.event_type == 0x00, after=mark)
    assert again[-1].event_type == 0x00, again
