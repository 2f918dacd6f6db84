"""Whole-process figures for the sensor bridge: blesensord on the simulated board with 4 sensors
polled at 10 Hz, idle (advertising, nobody connected) and with 4 Bumble centrals subscribed to
every notifying and indicating characteristic, on the harness's Bumble controller over H4/TCP.

Not a test: prints figures. Usage (use a release build):

    BLESENSORD=path Tests/Interop/.venv/bin/python Tests/Interop/bench_bridge.py [-s 20]

Figures: CPU (user+sys of every thread, from /proc/PID/task/*/schedstat, as bench_notify_cpu's
CpuMeter) as % of one core over the window; resident memory from /proc/PID/smaps_rollup: VmRSS
(total), private anonymous memory (Private_Dirty: heap, stacks, what the process alone costs) and
file-backed pages (the binary and the Swift libraries, shared with any other process mapping them
and reclaimable); values received by the centrals per second.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble.device import Peer  # noqa: E402

from bench_notify_cpu import CpuMeter, resident_kib  # noqa: E402
from harness.central import Central  # noqa: E402
from harness.daemon import spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402

CONFIG = """\
board: simulated
device-name: bench
advertising: {max-centrals: 4}
sensors:
  - {name: pulse, driver: max30102, poll-interval: 100ms, publish: [heart-rate-measurement]}
  - {name: body, driver: tmp102, poll-interval: 100ms, publish: [temperature-measurement, intermediate-temperature]}
  - {name: room, driver: bme280, poll-interval: 100ms, publish: [es-temperature, humidity, pressure]}
  - {name: battery, driver: max17048, poll-interval: 100ms, publish: [battery-level]}
"""


def rollup_kib(pid: int) -> dict[str, int]:
    values = {}
    with open(f'/proc/{pid}/smaps_rollup') as rollup:
        for line in rollup:
            key, _, rest = line.partition(':')
            parts = rest.split()
            if len(parts) == 2 and parts[1] == 'kB':
                values[key] = int(parts[0])
    return values


def memory(pid: int) -> str:
    rss, peak = resident_kib(pid)
    rollup = rollup_kib(pid)
    anonymous = rollup.get('Anonymous', 0)
    return (f'RSS {rss / 1024:.1f} MiB (private anonymous {anonymous / 1024:.1f} MiB, '
            f'file-backed {(rss - anonymous) / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB)')


async def window(meter: CpuMeter, seconds: float) -> float:
    before = meter.seconds()
    await asyncio.sleep(seconds)
    return 100 * (meter.seconds() - before) / seconds


async def subscribe_everything(central: Central, address, received: list[int]) -> None:
    connection = await central.connect(address, timeout=10)
    peer = Peer(connection)
    await asyncio.wait_for(peer.discover_services(), 10)
    for service in peer.services:
        await asyncio.wait_for(service.discover_characteristics(), 10)
    for service in peer.services:
        for characteristic in service.characteristics:
            if characteristic.properties & (0x10 | 0x20):
                await asyncio.wait_for(characteristic.discover_descriptors(), 10)
                def count(_value: bytes) -> None:
                    received[0] += 1
                await asyncio.wait_for(peer.subscribe(characteristic, count), 10)


async def connect_centrals(server: HarnessServer, count: int) -> list[int]:
    """`count` Bumble centrals connected and subscribed to everything; the returned counter grows
    with every value they receive."""
    received = [0]
    for index in range(count):
        central = Central(server.link, address=f'C0:00:00:00:00:{0xD0 + index:02X}',
                          public_address=f'00:1B:DC:F0:00:{0xD0 + index:02X}', name=f'bench-central-{index}')
        await central.power_on()
        record = await central.scan_for(None, timeout=10)
        await subscribe_everything(central, record.address, received)
    return received


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-s', '--seconds', type=float, default=20.0)
    parser.add_argument('--config', help='another configuration (board simulated) instead of the 4 sensors at 10 Hz')
    parser.add_argument('--idle-only', action='store_true', help='skip the connected centrals')
    args = parser.parse_args()
    binary = os.environ.get('BLESENSORD')
    if not binary or not os.path.exists(binary):
        print('set BLESENSORD to the blesensord binary', file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix='blesensor-bench-')
    config = os.path.join(work, 'bench.yaml')
    with open(config, 'w') as file:
        file.write(open(args.config).read() if args.config else CONFIG)
    server = HarnessServer()
    await server.start()
    started = time.monotonic()
    daemon = await spawn([binary, '--config', config, '--transport', f'tcp:127.0.0.1:{server.port}',
                          '--state-dir', work, '--control-socket', os.path.join(work, 'control.sock')])
    meter = CpuMeter(daemon.process.pid)
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 15)
        print(f'start to advertising: {(time.monotonic() - started) * 1000:.0f} ms (process spawn to LE Set Advertising Enable)')
        await asyncio.sleep(2)
        idle = await window(meter, args.seconds)
        print(f'idle, 4 sensors at 10 Hz, advertising: {idle:.2f} % of one core, {memory(daemon.process.pid)}')
        if args.idle_only:
            return 0

        received = await connect_centrals(server, 4)
        await asyncio.sleep(2)
        count_before = received[0]
        busy = await window(meter, args.seconds)
        rate = (received[0] - count_before) / args.seconds
        print(f'4 centrals subscribed to everything, 4 sensors at 10 Hz: {busy:.2f} % of one core, '
              f'{rate:.0f} values/s received in all, {memory(daemon.process.pid)}')
    finally:
        meter.stop()
        await daemon.kill()
        await server.close()
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
