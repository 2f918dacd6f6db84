"""The Prometheus endpoint end to end: blesensord on the simulated board with `metrics:`,
scraped with plain HTTP, checked by Debian's `promtool`, parsed by the Python client library's
own parsers (both formats), and scraped by a real `prometheus` server whose query API must return
the simulated chips' datasheet values. The shipped Grafana dashboard's every expression is run
against that server."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families as parse_text

from test_sensor_bridge import (BODY_CELSIUS, POLL_1S, REGISTERS_CONFIG, ROOM_CELSIUS, ROOM_HUMIDITY, ROOM_PASCAL,
                                ROOM_FAULT_CONFIG, sensor_yaml, BODY_REGISTERS, ROOM_REGISTERS, wait_status, sensor)

DASHBOARD = Path(__file__).resolve().parents[2] / 'dashboards' / 'blesensor.json'
OPENMETRICS = 'application/openmetrics-text; version=1.0.0'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def scrape(port: int, accept: str | None = None) -> tuple[int, str, str]:
    request = urllib.request.Request(f'http://127.0.0.1:{port}/metrics', headers={'Accept': accept} if accept else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, response.headers['Content-Type'], response.read().decode()


async def scrape_async(port: int, accept: str | None = None) -> tuple[int, str, str]:
    return await asyncio.to_thread(scrape, port, accept)


def samples(text: str, parser=parse_text) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in parser(text) for s in f.samples}


def value(found: dict, name: str, **labels) -> float | None:
    for (sample, sample_labels), v in found.items():
        if sample == name and all(dict(sample_labels).get(k) == w for k, w in labels.items()):
            return v
    return None


async def start(harness, spawn_daemon, tmp_path, config: str, name: str):
    port = free_port()
    path = tmp_path / f'{name}.yaml'
    path.write_text(config + f'metrics:\n  listen: 127.0.0.1:{port}\n  health-sensors: [pulse]\n')
    daemon = await spawn_daemon(harness.port, name, '--config', str(path))
    await daemon.wait_for_log('metrics: serving Prometheus metrics at', timeout=15)
    return daemon, port


async def scrape_until(port: int, condition, what: str, accept: str | None = None, attempts: int = 100) -> str:
    """Scrapes until `condition(samples)` holds; bounded by a count of scrapes, 0.2 s apart."""
    text = ''
    for _ in range(attempts):
        _, _, text = await scrape_async(port, accept)
        if condition(samples(text, parse_openmetrics if accept else parse_text)):
            return text
        await asyncio.sleep(0.2)
    raise AssertionError(f'{what} never held; last scrape:\n{text}')


async def test_a_scrape_is_clean_for_promtool_and_carries_the_datasheet_values(harness, spawn_daemon, tmp_path):
    daemon, port = await start(harness, spawn_daemon, tmp_path, REGISTERS_CONFIG, 'metrics-values')
    text = await scrape_until(port, lambda s: value(s, 'blesensor_temperature_celsius', sensor='room') is not None
                              and value(s, 'blesensor_heart_rate_beats_per_minute', sensor='pulse') is not None,
                              'room and pulse values')
    status, content_type, _ = await scrape_async(port)
    assert status == 200 and content_type.startswith('text/plain; version=0.0.4'), content_type

    lint = subprocess.run(['promtool', 'check', 'metrics'], input=text, capture_output=True, text=True, timeout=60)
    assert lint.returncode == 0 and lint.stdout.strip() == '' and lint.stderr.strip() == '', (lint.stdout, lint.stderr)

    found = samples(text)
    assert abs(value(found, 'blesensor_temperature_celsius', sensor='room', driver='bme280') - ROOM_CELSIUS) <= 0.01
    assert abs(value(found, 'blesensor_humidity_ratio', sensor='room') - ROOM_HUMIDITY / 100) <= 0.0001
    assert abs(value(found, 'blesensor_pressure_pascals', sensor='room') - ROOM_PASCAL) <= 0.5
    assert value(found, 'blesensor_battery_level_ratio', sensor='battery') == pytest.approx(0.87, abs=0.005)
    assert value(found, 'blesensor_heart_rate_beats_per_minute', sensor='pulse') == pytest.approx(72, abs=3)
    # The body thermometer is health data and not listed under health-sensors: nothing of it leaves.
    assert not [k for k in found if dict(k[1]).get('sensor') == 'body'], 'body temperature exported without opt-in'
    assert value(found, 'blesensor_sensor_up', sensor='room') == 1
    assert [dict(labels)['version'] for name, labels in found if name == 'blesensor_build_info'] != []
    assert value(found, 'blesensor_exporter_up', exporter='metrics') == 1
    assert value(found, 'process_resident_memory_bytes') > 1_000_000

    # Every family survives the client library's parser of each format, with every sample.
    families_text = {f.name for f in parse_text(text)}
    # The client library names a counter family without its `_total`.
    declared = {re.sub(r'_total$', '', name) if kind == 'counter' else name
                for name, kind in re.findall(r'^# TYPE (\S+) (\S+)$', text, re.M)}
    assert declared == families_text, declared ^ families_text
    sample_lines = [line for line in text.splitlines() if line and not line.startswith('#')]
    assert len(sample_lines) == sum(len(f.samples) for f in parse_text(text))

    status, content_type, om = await scrape_async(port, OPENMETRICS)
    assert content_type.startswith('application/openmetrics-text; version=1.0.0'), content_type
    assert om.endswith('# EOF\n')
    om_families = {f.name: f for f in parse_openmetrics(om)}
    assert om_families['blesensor_build'].type == 'info'
    assert om_families['blesensor_sensor_read_failures'].type == 'counter'
    om_found = samples(om, parse_openmetrics)
    assert abs(value(om_found, 'blesensor_temperature_celsius', sensor='room') - ROOM_CELSIUS) <= 0.01
    assert {name for name, _ in om_found} == {name for name, _ in found}
    # The text format through the client library's own writer and back: the same samples.
    from prometheus_client.openmetrics.exposition import generate_latest
    class Registry:
        def collect(self):
            return parse_openmetrics(om)
    again = generate_latest(Registry()).decode()
    assert samples(again, parse_openmetrics).keys() == om_found.keys()
    assert daemon.process.returncode is None


async def test_a_failed_sensor_drops_its_values_and_shows_down(harness, spawn_daemon, tmp_path):
    config = ('board: simulated\nsensors:\n'
              + sensor_yaml('body', 'tmp102', 'temperature-measurement', BODY_REGISTERS, POLL_1S)
              + sensor_yaml('room', 'bme280', 'es-temperature, humidity, pressure', ROOM_REGISTERS + ', fail-after: 3s', POLL_1S))
    port = free_port()
    path = tmp_path / 'fault.yaml'
    path.write_text(config + f'metrics:\n  listen: 127.0.0.1:{port}\n  health-sensors: [body]\n')
    daemon = await spawn_daemon(harness.port, 'metrics-fault', '--config', str(path))
    await daemon.wait_for_log('metrics: serving Prometheus metrics at', timeout=15)
    await scrape_until(port, lambda s: value(s, 'blesensor_temperature_celsius', sensor='room') is not None, 'a room value')
    text = await scrape_until(port, lambda s: value(s, 'blesensor_sensor_up', sensor='room') == 0, 'room down')
    found = samples(text)
    for family in ('blesensor_temperature_celsius', 'blesensor_humidity_ratio', 'blesensor_pressure_pascals',
                   'blesensor_sensor_last_reading_timestamp_seconds'):
        assert value(found, family, sensor='room') is None, f'{family} still has a room sample after the fault'
    assert value(found, 'blesensor_sensor_read_failures_total', sensor='room') >= 1
    # The opted-in body thermometer keeps its value.
    assert abs(value(found, 'blesensor_temperature_celsius', sensor='body') - BODY_CELSIUS) <= 0.01
    assert value(found, 'blesensor_sensor_up', sensor='body') == 1
    snapshot = await wait_status(daemon, lambda s: sensor(s, 'room')['state'] == 'failed', 5, 'room failed in status')
    exporters = snapshot['exporters']
    assert [e['name'] for e in exporters] == ['metrics'] and exporters[0]['state'] == 'running', exporters


@pytest.mark.skipif(shutil.which('prometheus') is None, reason='prometheus is not installed (scripts/install-deps.sh)')
async def test_a_real_prometheus_scrapes_the_daemon_and_runs_the_dashboard(harness, spawn_daemon, tmp_path):
    daemon, port = await start(harness, spawn_daemon, tmp_path, REGISTERS_CONFIG, 'metrics-prometheus')
    web = free_port()
    (tmp_path / 'prometheus.yml').write_text(
        'global: {scrape_interval: 1s, evaluation_interval: 1s}\n'
        f"scrape_configs:\n  - job_name: blesensor\n    static_configs: [{{targets: ['127.0.0.1:{port}']}}]\n")
    server = await asyncio.create_subprocess_exec(
        'prometheus', f'--config.file={tmp_path / "prometheus.yml"}', f'--storage.tsdb.path={tmp_path / "tsdb"}',
        f'--web.listen-address=127.0.0.1:{web}', stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        def query(expr: str) -> list:
            url = f'http://127.0.0.1:{web}/api/v1/query?' + urllib.parse.urlencode({'query': expr})
            with urllib.request.urlopen(url, timeout=10) as response:
                body = json.load(response)
            assert body['status'] == 'success', body
            return body['data']['result']

        async def query_until(expr: str, what: str, attempts: int = 150) -> list:
            for _ in range(attempts):
                try:
                    result = await asyncio.to_thread(query, expr)
                    if result:
                        return result
                except OSError:
                    pass  # not listening yet
                await asyncio.sleep(0.2)
            raise AssertionError(f'{what}: {expr} returned nothing')

        room = await query_until('blesensor_temperature_celsius{sensor="room"}', 'the scraped room temperature')
        assert abs(float(room[0]['value'][1]) - ROOM_CELSIUS) <= 0.01, room
        up = await query_until('up{job="blesensor"}', 'the target up')
        assert up[0]['value'][1] == '1', up
        # Two scrapes at least, so every rate() over the dashboard's window has points.
        await query_until('count_over_time(blesensor_sensor_up{sensor="room"}[1m]) >= 3', 'three scrapes')

        dashboard = json.loads(DASHBOARD.read_text())
        expressions = [t['expr'] for p in dashboard['panels'] for t in p['targets']]
        assert expressions
        for expr in expressions:
            result = await query_until(expr.replace('$__rate_interval', '1m'), 'a dashboard query')
            assert result, expr
    finally:
        server.terminate()
        _, err = await server.communicate()
        assert server.returncode in (0, -15), err.decode()[-2000:]
