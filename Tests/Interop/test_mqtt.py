"""MQTT with Home Assistant discovery against Debian's real `mosquitto` broker, started here on
127.0.0.1 with a free port: plain, with a password file made by mosquitto_passwd, and with TLS
from an openssl-made CA. A paho-mqtt client subscribes as Home Assistant would. The daemon runs
the simulated board whose chips hold datasheet registers (test_sensor_bridge.py), so the states
are checked against values computed here from those registers."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from harness.cli import run_cli
from test_sensor_bridge import BODY_CELSIUS, BODY_REGISTERS, ROOM_CELSIUS, ROOM_HUMIDITY, ROOM_PASCAL, ROOM_REGISTERS, sensor_yaml

DEVICE = 'MQTT Bridge'
PREFIX = 'blesensor/mqtt_bridge'
AVAILABILITY = f'{PREFIX}/availability'

# body is health data (a Health Thermometer), exported only because it is listed under
# health-sensors; pulse is health data and is not listed, so it must never appear.
SENSORS = ('board: simulated\n'
           f'device-name: {DEVICE}\n'
           'sensors:\n'
           + sensor_yaml('pulse', 'max30102', 'heart-rate-measurement', 'bpm: 72')
           + sensor_yaml('body', 'tmp102', 'temperature-measurement', BODY_REGISTERS)
           + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS)
           + sensor_yaml('battery', 'max17048', 'battery-level', 'battery-percent: 87'))

# object id -> (state topic, device class, unit, expected value, tolerance)
EXPECTED = {
    'body_temperature': (f'{PREFIX}/body/temperature', 'temperature', '°C', BODY_CELSIUS, 0.006),
    'room_temperature': (f'{PREFIX}/room/temperature', 'temperature', '°C', ROOM_CELSIUS, 0.006),
    'room_humidity': (f'{PREFIX}/room/humidity', 'humidity', '%', ROOM_HUMIDITY, 0.06),
    'room_pressure': (f'{PREFIX}/room/pressure', 'atmospheric_pressure', 'hPa', ROOM_PASCAL / 100, 0.006),
    'battery_battery_level': (f'{PREFIX}/battery/battery-level', 'battery', '%', 87, 0.5),
}
PROBLEMS = ['body_problem', 'room_problem', 'battery_problem']
CONFIG_KEYS = {'name', 'unique_id', 'state_topic', 'availability_topic', 'payload_available', 'payload_not_available',
               'device', 'device_class', 'unit_of_measurement', 'state_class', 'expire_after'}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Broker:
    """`mosquitto -c` on 127.0.0.1, kept as root (its files are in the test's private directory)."""

    def __init__(self, directory: Path, port: int | None = None, extra: str = '') -> None:
        self.directory = directory
        self.port = port or free_port()
        self.extra = extra
        self.process: subprocess.Popen | None = None
        self.log = directory / f'mosquitto-{self.port}.log'

    def start(self) -> None:
        config = self.directory / f'mosquitto-{self.port}.conf'
        config.write_text(f'user root\nlistener {self.port} 127.0.0.1\npersistence false\nlog_dest stderr\n{self.extra}')
        self.process = subprocess.Popen(['mosquitto', '-c', str(config)], stdout=subprocess.DEVNULL,
                                        stderr=open(self.log, 'ab'))

    async def ready(self, timeout: float = 10) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            assert self.process and self.process.poll() is None, f'mosquitto exited: {self.log.read_text()}'
            try:
                _, writer = await asyncio.open_connection('127.0.0.1', self.port)
                writer.close()
                return
            except OSError:
                if asyncio.get_running_loop().time() > deadline:
                    raise AssertionError(f'mosquitto not listening on {self.port}: {self.log.read_text()}') from None
                await asyncio.sleep(0.05)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def brokers(tmp_path):
    started: list[Broker] = []

    async def start(extra: str = '', port: int | None = None) -> Broker:
        broker = Broker(tmp_path, port, extra)
        broker.start()
        started.append(broker)
        await broker.ready()
        return broker

    yield start
    for broker in started:
        broker.stop()
        print(f'--- mosquitto on {broker.port}:\n{broker.log.read_text() if broker.log.exists() else ""}')


class Subscriber:
    """A paho-mqtt client recording every message (topic, payload, retain flag)."""

    def __init__(self, port: int, topics: list[str], tls_ca: Path | None = None,
                 username: str | None = None, password: str | None = None) -> None:
        self.messages: list[tuple[str, str, bool]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        if tls_ca:
            self.client.tls_set(ca_certs=str(tls_ca))
        if username:
            self.client.username_pw_set(username, password)
        self.client.on_message = self._message
        self.client.on_connect = lambda client, userdata, flags, reason, properties: [client.subscribe(t, 1) for t in topics]
        self.client.connect('127.0.0.1', port)
        self.client.loop_start()

    def _message(self, client, userdata, message) -> None:
        with self.lock:
            self.messages.append((message.topic, message.payload.decode('utf-8', 'replace'), bool(message.retain)))

    def snapshot(self) -> list[tuple[str, str, bool]]:
        with self.lock:
            return list(self.messages)

    def latest(self, topic: str) -> str | None:
        found = [payload for t, payload, _ in self.snapshot() if t == topic]
        return found[-1] if found else None

    def count(self, topic: str, payload: str | None = None) -> int:
        return sum(1 for t, p, _ in self.snapshot() if t == topic and (payload is None or p == payload))

    def publish(self, topic: str, payload: str, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    async def wait(self, condition, timeout: float, what: str):
        deadline = asyncio.get_running_loop().time() + timeout
        while not condition():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f'timed out after {timeout} s waiting for {what}; got {self.snapshot()[-30:]}')
            await asyncio.sleep(0.05)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


@pytest.fixture
def subscribers():
    made: list[Subscriber] = []

    def make(*args, **kwargs) -> Subscriber:
        subscriber = Subscriber(*args, **kwargs)
        made.append(subscriber)
        return subscriber

    yield make
    for subscriber in made:
        subscriber.close()


def config_topic(node: str, object_id: str) -> str:
    component = 'binary_sensor' if object_id.endswith('_problem') else 'sensor'
    return f'homeassistant/{component}/{node}/{object_id}/config'


async def daemon_status(daemon) -> dict:
    code, out, err = await run_cli('status', '--json', '--socket', daemon.control_socket)
    assert code == 0, err
    return json.loads(out)


async def wait_daemon_status(daemon, condition, timeout: float, what: str) -> dict:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        snapshot = await daemon_status(daemon)
        if condition(snapshot):
            return snapshot
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f'timed out after {timeout} s waiting for {what}; last status {snapshot}')
        await asyncio.sleep(0.2)


def mqtt_status(snapshot: dict) -> dict:
    return next(e for e in snapshot['exporters'] if e['name'] == 'mqtt')


async def start_daemon(harness, spawn_daemon, tmp_path, mqtt_section: str, sensors: str = SENSORS, name: str = 'mqtt'):
    path = tmp_path / f'{name}.yaml'
    path.write_text(sensors + mqtt_section)
    daemon = await spawn_daemon(harness.port, DEVICE, '--config', str(path))
    await daemon.wait_for_log('advertising as', timeout=10)
    return daemon


async def node_of(daemon) -> str:
    address = (await daemon_status(daemon))['address']
    return 'blesensor_' + address[:17].replace(':', '').lower()


async def check_discovery_and_states(subscriber: Subscriber, node: str) -> None:
    topics = {object_id: config_topic(node, object_id) for object_id in [*EXPECTED, *PROBLEMS]}
    await subscriber.wait(lambda: all(subscriber.latest(t) for t in topics.values())
                          and all(subscriber.latest(state) for state, *_ in EXPECTED.values())
                          and subscriber.latest(AVAILABILITY) == 'online',
                          10, 'every config, every state and online')
    for object_id, (state_topic, device_class, unit, value, tolerance) in EXPECTED.items():
        config = json.loads(subscriber.latest(topics[object_id]))
        assert CONFIG_KEYS <= set(config), (object_id, sorted(config))
        assert config['unique_id'] == f'{node}_{object_id}'
        assert config['state_topic'] == state_topic
        assert config['device_class'] == device_class and config['unit_of_measurement'] == unit, config
        assert config['state_class'] == 'measurement' and config['expire_after'] >= 3
        assert config['availability_topic'] == AVAILABILITY
        assert config['device']['identifiers'] == [node] and config['device']['name'] == DEVICE
        assert config['device']['model'] == 'Simulated board' and config['device']['sw_version']
        state = float(subscriber.latest(state_topic))
        assert abs(state - value) <= tolerance, (object_id, state, value)
    for object_id in PROBLEMS:
        config = json.loads(subscriber.latest(topics[object_id]))
        assert config['device_class'] == 'problem' and config['entity_category'] == 'diagnostic', config
        assert subscriber.latest(config['state_topic']) == 'OFF'
    # Health data that was not opted in never leaves the device.
    assert not any('pulse' in topic for topic, _, _ in subscriber.snapshot())


async def test_plain_broker_gets_retained_discovery_states_and_availability(harness, spawn_daemon, brokers, subscribers, tmp_path):
    broker = await brokers('allow_anonymous true\n')
    daemon = await start_daemon(harness, spawn_daemon, tmp_path,
                                f'mqtt:\n  broker: mqtt://127.0.0.1:{broker.port}\n  health-sensors: [body]\n')
    node = await node_of(daemon)
    live = subscribers(broker.port, ['homeassistant/#', 'blesensor/#'])
    await check_discovery_and_states(live, node)
    code, out, err = await run_cli('config', 'check', str(tmp_path / 'mqtt.yaml'))
    assert code == 0, err
    assert (f'publishes body (health data), room, battery to mqtt://127.0.0.1:{broker.port} under {PREFIX}/, '
            'Home Assistant discovery under homeassistant/') in out, out

    # Retained: a client that subscribes now gets the configs and online at once, marked retained.
    late = subscribers(broker.port, ['homeassistant/+/+/+/config', AVAILABILITY])
    await late.wait(lambda: len({t for t, _, retained in late.snapshot() if retained and t.endswith('/config')}) == len(EXPECTED) + len(PROBLEMS),
                    10, 'retained configs')
    assert (AVAILABILITY, 'online', True) in late.snapshot()

    # Home Assistant's birth message: every config again.
    before = live.count(config_topic(node, 'room_temperature'))
    live.publish('homeassistant/status', 'online')
    await live.wait(lambda: live.count(config_topic(node, 'room_temperature')) > before, 10, 'configs published again')

    snapshot = await daemon_status(daemon)
    status = mqtt_status(snapshot)
    assert status['state'] == 'running' and status['endpoint'] == f'mqtt://127.0.0.1:{broker.port}', status
    assert status['sent'] >= len(EXPECTED) + len(PROBLEMS)

    # SIGKILL: no goodbye from the daemon, the broker publishes its will.
    daemon.send_signal(signal.SIGKILL)
    await live.wait(lambda: live.latest(AVAILABILITY) == 'offline', 10, 'offline from the will')


async def test_a_failed_sensor_publishes_no_value_and_its_problem_turns_on(harness, spawn_daemon, brokers, subscribers, tmp_path):
    broker = await brokers('allow_anonymous true\n')
    sensors = ('board: simulated\n'
               f'device-name: {DEVICE}\n'
               'sensors:\n'
               + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS + ', fail-after: 2s',
                             '    poll-interval: 200ms\n'))
    live = subscribers(broker.port, ['blesensor/#'])
    daemon = await start_daemon(harness, spawn_daemon, tmp_path, f'mqtt:\n  broker: mqtt://127.0.0.1:{broker.port}\n', sensors)
    await live.wait(lambda: live.latest(f'{PREFIX}/room/problem') == 'ON', 15, 'room problem ON')
    values_when_failed = live.count(f'{PREFIX}/room/temperature')
    assert values_when_failed > 0
    # Polls go on (failing); no temperature follows.
    reads = (await daemon_status(daemon))['sensors'][0]
    await wait_daemon_status(daemon, lambda s: s['sensors'][0]['failures'] >= reads['failures'] + 5, 10, 'five more failed reads')
    assert live.count(f'{PREFIX}/room/temperature') == values_when_failed


async def test_password_file_login_and_a_refused_password(harness, spawn_daemon, brokers, subscribers, tmp_path):
    passwords = tmp_path / 'broker-passwords'
    subprocess.run(['mosquitto_passwd', '-b', '-c', str(passwords), 'bridge', 'correct horse'], check=True)
    broker = await brokers(f'allow_anonymous false\npassword_file {passwords}\n')
    secret = tmp_path / 'mqtt-password'
    secret.write_text('correct horse\n')
    os.chmod(secret, 0o640)
    daemon = await start_daemon(harness, spawn_daemon, tmp_path,
                                f'mqtt:\n  broker: mqtt://127.0.0.1:{broker.port}\n  username: bridge\n'
                                f'  password-file: {secret}\n  health-sensors: [body]\n')
    live = subscribers(broker.port, ['homeassistant/#', 'blesensor/#'], username='bridge', password='correct horse')
    await check_discovery_and_states(live, await node_of(daemon))

    # The harness's controller serves one daemon at a time.
    await daemon.kill()
    wrong = tmp_path / 'wrong-password'
    wrong.write_text('battery staple\n')
    refused = await start_daemon(harness, spawn_daemon, tmp_path,
                                 f'mqtt:\n  broker: mqtt://127.0.0.1:{broker.port}\n  username: bridge\n  password-file: {wrong}\n',
                                 name='refused')
    snapshot = await wait_daemon_status(refused, lambda s: mqtt_status(s)['state'] == 'failed', 10, 'mqtt failed')
    assert 'user name or password' in mqtt_status(snapshot)['lastError'], mqtt_status(snapshot)
    code, out, _ = await run_cli('doctor', '--config', str(tmp_path / 'refused.yaml'), '--socket', refused.control_socket, timeout=30)
    assert 'exporter mqtt' in out and 'user name or password' in out, out


def make_tls_files(directory: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it, with openssl."""
    ca_key, ca_cert = directory / 'ca.key', directory / 'ca.pem'
    key, request, cert = directory / 'server.key', directory / 'server.csr', directory / 'server.pem'
    extensions = directory / 'server.ext'
    extensions.write_text('subjectAltName = IP:127.0.0.1\n')
    run = lambda *argv: subprocess.run(['openssl', *argv], check=True, capture_output=True)  # noqa: E731
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', str(ca_key), '-out', str(ca_cert),
        '-days', '2', '-subj', '/CN=blesensor test CA')
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', str(key), '-out', str(request), '-subj', '/CN=127.0.0.1')
    run('x509', '-req', '-in', str(request), '-CA', str(ca_cert), '-CAkey', str(ca_key), '-CAcreateserial',
        '-out', str(cert), '-days', '2', '-extfile', str(extensions))
    return ca_cert, cert, key


async def test_tls_with_an_openssl_made_ca(harness, spawn_daemon, brokers, subscribers, tmp_path):
    ca, cert, key = make_tls_files(tmp_path)
    broker = await brokers(f'allow_anonymous true\ncafile {ca}\ncertfile {cert}\nkeyfile {key}\n')
    daemon = await start_daemon(harness, spawn_daemon, tmp_path,
                                f'mqtt:\n  broker: mqtts://127.0.0.1:{broker.port}\n  ca-file: {ca}\n  health-sensors: [body]\n')
    live = subscribers(broker.port, ['homeassistant/#', 'blesensor/#'], tls_ca=ca)
    await check_discovery_and_states(live, await node_of(daemon))
    status = mqtt_status(await daemon_status(daemon))
    assert status['state'] == 'running' and status['endpoint'].startswith('mqtts://'), status

    # A clean stop says offline itself (a clean DISCONNECT makes the broker drop the will).
    daemon.send_signal(signal.SIGTERM)
    assert await daemon.wait_exit(15) == 0
    await live.wait(lambda: live.latest(AVAILABILITY) == 'offline', 5, 'offline from the stopping daemon')


async def test_broker_restart_reconnects_and_publishes_again(harness, spawn_daemon, brokers, subscribers, tmp_path):
    broker = await brokers('allow_anonymous true\n')
    daemon = await start_daemon(harness, spawn_daemon, tmp_path,
                                f'mqtt:\n  broker: mqtt://127.0.0.1:{broker.port}\n  health-sensors: [body]\n')
    node = await node_of(daemon)
    first = subscribers(broker.port, ['homeassistant/#', 'blesensor/#'])
    await check_discovery_and_states(first, node)
    first.close()

    broker.stop()
    snapshot = await wait_daemon_status(daemon, lambda s: mqtt_status(s)['state'] == 'connecting', 15, 'mqtt connecting')
    assert mqtt_status(snapshot)['lastError'], mqtt_status(snapshot)

    # Same port, no persistence: whatever the new broker holds, the daemon published again.
    again = await brokers('allow_anonymous true\n', port=broker.port)
    await wait_daemon_status(daemon, lambda s: mqtt_status(s)['state'] == 'running', 30, 'mqtt running again')
    second = subscribers(again.port, ['homeassistant/#', 'blesensor/#'])
    await check_discovery_and_states(second, node)


def vm_rss_kib(pid: int) -> int:
    for line in Path(f'/proc/{pid}/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
    raise AssertionError('no VmRSS')


async def test_a_broker_that_never_answers_stalls_no_sensor_and_grows_no_memory(harness, spawn_daemon, tmp_path):
    # Accepts connections and reads what comes, never answering: CONNECT gets no CONNACK.
    connections: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        while await reader.read(4096):
            pass

    server = await asyncio.start_server(silent, '127.0.0.1', 0)
    port = server.sockets[0].getsockname()[1]
    sensors = ('board: simulated\n'
               f'device-name: {DEVICE}\n'
               'sensors:\n'
               + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS, '    poll-interval: 100ms\n'))
    try:
        daemon = await start_daemon(harness, spawn_daemon, tmp_path, f'mqtt:\n  broker: mqtt://127.0.0.1:{port}\n', sensors)
        pid = daemon.process.pid
        snapshot = await wait_daemon_status(daemon, lambda s: s['sensors'][0]['reads'] >= 30, 15, '30 reads')
        assert connections, 'the daemon never connected to the silent broker'
        early = vm_rss_kib(pid)
        start_reads = snapshot['sensors'][0]['reads']
        # 150 more polls at 10 Hz: past the CONNACK deadline, a reconnection, many replaced values.
        snapshot = await wait_daemon_status(daemon, lambda s: s['sensors'][0]['reads'] >= start_reads + 150, 40, '150 more reads')
        late = vm_rss_kib(pid)
        status = mqtt_status(snapshot)
        assert status['state'] == 'connecting', status
        assert status['sent'] == 0 and status['dropped'] >= 100, status
        assert snapshot['sensors'][0]['state'] == 'ok'
        # Generous: allocator noise, not a queue of 150 × 4 messages.
        assert late <= early + 4096, (early, late)
    finally:
        server.close()
        for writer in connections:
            writer.close()


async def test_a_blackholed_broker_times_out_and_does_not_hold_up_a_stop(harness, spawn_daemon, tmp_path):
    # A listening socket with a full accept queue drops every further SYN: the daemon's TCP
    # connect gets no answer at all, as with a broker behind a firewall that drops packets.
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(3):
        filler = socket.socket()
        filler.setblocking(False)
        filler.connect_ex(('127.0.0.1', port))
        fillers.append(filler)
    try:
        daemon = await start_daemon(harness, spawn_daemon, tmp_path, f'mqtt:\n  broker: mqtt://127.0.0.1:{port}\n')
        # The CONNACK deadline covers the TCP connect: a blocking one would keep the status blank for minutes.
        snapshot = await wait_daemon_status(daemon, lambda s: mqtt_status(s).get('lastError'), 25, 'an MQTT error')
        status = mqtt_status(snapshot)
        assert status['state'] == 'connecting', status
        assert f'no answer from mqtt://127.0.0.1:{port} within 10 s' in status['lastError'], status
        daemon.send_signal(signal.SIGTERM)
        assert await daemon.wait_exit(10) == 0
        assert 'did not finish' not in daemon.log, daemon.log
    finally:
        for filler in fillers:
            filler.close()
        listener.close()
