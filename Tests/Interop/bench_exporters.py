"""What the exporters cost, whole-process: blesensord on the simulated board with 4 sensors polled
at 10 Hz and 4 Bumble centrals subscribed to everything, once with MQTT, the BTHome broadcast and
the Prometheus endpoint all off and once with all three on (a real mosquitto broker on 127.0.0.1,
/metrics scraped every second as Prometheus would), in the same run, alternating --rounds times.

Not a test: prints figures. Usage (a release build):

    BLESENSORD=path Tests/Interop/.venv/bin/python Tests/Interop/bench_exporters.py [-s 20] [--rounds 2]

CPU is user+sys of every thread (bench_notify_cpu's CpuMeter) as % of one core over the window;
memory as bench_bridge prints it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_bridge import CONFIG, connect_centrals, memory, window  # noqa: E402
from bench_notify_cpu import CpuMeter  # noqa: E402
from harness.daemon import spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def exporters_config(mqtt_port: int, metrics_port: int) -> str:
    return (CONFIG
            + f'mqtt:\n  broker: mqtt://127.0.0.1:{mqtt_port}\n  health-sensors: [pulse, body]\n'
            + 'broadcast: bthome\n'
            + f'metrics:\n  listen: 127.0.0.1:{metrics_port}\n  health-sensors: [pulse, body]\n')


async def scrape_every_second(port: int, stop: asyncio.Event) -> int:
    scrapes = 0
    while not stop.is_set():
        def get() -> None:
            with urllib.request.urlopen(f'http://127.0.0.1:{port}/metrics', timeout=5) as response:
                response.read()
        try:
            await asyncio.to_thread(get)
            scrapes += 1
        except OSError:
            pass
        try:
            await asyncio.wait_for(stop.wait(), 1)
        except asyncio.TimeoutError:
            pass
    return scrapes


async def measure(binary: str, config_text: str, label: str, seconds: float, metrics_port: int | None) -> None:
    work = tempfile.mkdtemp(prefix='blesensor-bench-exporters-')
    config = os.path.join(work, 'bench.yaml')
    with open(config, 'w') as file:
        file.write(config_text)
    server = HarnessServer()
    await server.start()
    daemon = await spawn([binary, '--config', config, '--transport', f'tcp:127.0.0.1:{server.port}',
                          '--state-dir', work, '--control-socket', os.path.join(work, 'control.sock')])
    meter = CpuMeter(daemon.process.pid)
    stop = asyncio.Event()
    scraper = None
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 15)
        received = await connect_centrals(server, 4)
        if metrics_port:
            scraper = asyncio.create_task(scrape_every_second(metrics_port, stop))
        await asyncio.sleep(2)
        before = received[0]
        busy = await window(meter, seconds)
        rate = (received[0] - before) / seconds
        print(f'{label}: {busy:.2f} % of one core, {rate:.0f} values/s to the centrals, {memory(daemon.process.pid)}', flush=True)
    finally:
        stop.set()
        if scraper:
            await scraper
        meter.stop()
        await daemon.kill()
        await server.close()


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-s', '--seconds', type=float, default=20.0)
    parser.add_argument('--rounds', type=int, default=2)
    args = parser.parse_args()
    binary = os.environ.get('BLESENSORD')
    if not binary or not os.path.exists(binary) or shutil.which('mosquitto') is None:
        print('set BLESENSORD to the blesensord binary; mosquitto must be installed (scripts/install-deps.sh)', file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix='blesensor-bench-broker-')
    mqtt_port = free_port()
    with open(os.path.join(work, 'mosquitto.conf'), 'w') as file:
        file.write(f'listener {mqtt_port} 127.0.0.1\nallow_anonymous true\npersistence false\n')
    broker = await asyncio.create_subprocess_exec('mosquitto', '-c', os.path.join(work, 'mosquitto.conf'),
                                                  stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    try:
        for round_number in range(args.rounds):
            await measure(binary, CONFIG, f'round {round_number + 1}, exporters off', args.seconds, None)
            metrics_port = free_port()
            await measure(binary, exporters_config(mqtt_port, metrics_port), f'round {round_number + 1}, MQTT + BTHome + metrics on',
                          args.seconds, metrics_port)
    finally:
        broker.terminate()
        await broker.wait()
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
