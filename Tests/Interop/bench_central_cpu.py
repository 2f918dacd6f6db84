"""Whole-process benchmark of the receiving central: CPU (user+sys of every thread) that
`blesensor subscribe ADDRESS 2A37 --json` spends per notification it prints, against a Bumble
central process doing the same (tools/bumble_subscribe_central.py, one JSON line per
notification too), in the same run, alternating A/B.

Not a test: prints figures. Usage (release builds give the figures that matter):

    BLESENSOR=path HEART_RATE_PERIPHERAL=path python bench_central_cpu.py [-n 2000 -N 42000 --rounds 3]

(`blesensor` is also found beside $BLESENSORD; without $HEART_RATE_PERIPHERAL, or with
--peripheral bumble, tools/bumble_stream_peripheral.py streams instead.)

Set-up per measurement, fresh each time: one harness link with two harness controllers; the
streaming peripheral (`heart-rate-peripheral --stream`: 20-byte 2A37 as fast as the link takes
them) on one over H4/TCP, the central under test on the other. The central's stdout lines are
counted as they come; per notification = CPU of the central process between its n-th and N-th
notification line / (N - n), so start-up, connection, discovery and subscription cancel out.
Rate = (N - n) / wall time between those lines; VmRSS/VmHWM at the N-th line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_notify_cpu import CpuMeter, resident_kib  # noqa: E402
from harness.central_cli import blesensor_path  # noqa: E402
from harness.controller import HarnessLink  # noqa: E402
from harness.daemon import spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class Result:
    cpu_us: float  # CPU per notification
    rate: float  # notifications per second
    rss_kib: int
    peak_kib: int
    sample: str = ''


class LineCounter:
    """Counts a process's stdout notification lines and wakes waiters at thresholds."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.count = 0
        self.sample = b''  # the first notification line, to show what is printed
        self.subscribed = False
        self.ended = False
        self.errors = b''  # the end of stderr
        self._changed = asyncio.Event()
        self._tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._read_errors())]

    async def _read(self) -> None:
        while line := await self.process.stdout.readline():
            if b'"notification"' in line:
                self.count += 1
                self.sample = self.sample or line.rstrip()
            elif b'"subscribed"' in line:
                self.subscribed = True
            self._changed.set()
        self.ended = True
        self._changed.set()

    async def _read_errors(self) -> None:
        while chunk := await self.process.stderr.read(4096):
            self.errors = (self.errors + chunk)[-3000:]

    async def until(self, done, what: str, timeout: float) -> None:
        async def wait() -> None:
            while not done():
                if self.ended:
                    raise RuntimeError(f'the central ended before {what}')
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()


async def measure(label: str, peripheral_argv, central_argv, first: int, last: int, timeout: float) -> Result:
    link = HarnessLink()
    peripheral_server = HarnessServer(link=link, public_address='00:1B:DC:F0:00:B1', name='peripheral-controller')
    central_server = HarnessServer(link=link, public_address='00:1B:DC:F0:00:C3', name='central-controller')
    await peripheral_server.start()
    await central_server.start()
    peripheral = central = counter = meter = None
    try:
        peripheral = await spawn(peripheral_argv(peripheral_server.port))
        await asyncio.wait_for(peripheral_server.controller.wait_for_advertising_enable(True), 15)
        address = peripheral_server.controller.random_address.to_string(with_type_qualifier=False)
        central = await asyncio.create_subprocess_exec(
            *central_argv(central_server.port, address), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        counter = LineCounter(central)
        meter = CpuMeter(central.pid)
        await counter.until(lambda: counter.subscribed, 'subscribing', 30)
        await counter.until(lambda: counter.count >= first, f'notification {first}', timeout)
        cpu_first, time_first = meter.seconds(), time.monotonic()
        await counter.until(lambda: counter.count >= last, f'notification {last}', timeout)
        cpu_last, time_last = meter.seconds(), time.monotonic()
        rss, peak = resident_kib(central.pid)
    except (RuntimeError, asyncio.TimeoutError) as error:
        errors = counter.errors.decode(errors='replace') if counter else ''
        print(f'{label}: failed: {error!r}\ncentral stderr:\n{errors}\nperipheral log:\n{peripheral.log[-3000:] if peripheral else ""}',
              file=sys.stderr)
        raise
    finally:
        if meter:
            meter.stop()
        if peripheral:
            await peripheral.kill()  # first: a stream to a central that is gone is logged per packet
        if central and central.returncode is None:
            central.kill()
            await central.wait()
        if counter:
            counter.stop()
        await central_server.close()
        await peripheral_server.close()
    result = Result((cpu_last - cpu_first) / (last - first) * 1e6, (last - first) / (time_last - time_first), rss, peak,
                    counter.sample.decode(errors='replace'))
    print(f'{label}: {result.cpu_us:6.1f} µs CPU per notification, {result.rate:6.0f} notifications/s, '
          f'RSS {rss / 1024:5.1f} MiB, peak {peak / 1024:5.1f} MiB', flush=True)
    return result


def summary(label: str, results: list[Result]) -> Result:
    median = Result(statistics.median(r.cpu_us for r in results), statistics.median(r.rate for r in results),
                    int(statistics.median(r.rss_kib for r in results)), int(statistics.median(r.peak_kib for r in results)))
    print(f'median {label}: {median.cpu_us:6.1f} µs CPU per notification, {median.rate:6.0f} notifications/s, '
          f'RSS {median.rss_kib / 1024:5.1f} MiB, peak {median.peak_kib / 1024:5.1f} MiB')
    return median


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-n', '--first', type=int, default=2000)
    parser.add_argument('-N', '--last', type=int, default=42000)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--peripheral', choices=['ours', 'bumble'],
                        default='ours' if os.environ.get('HEART_RATE_PERIPHERAL') else 'bumble')
    parser.add_argument('--timeout', type=float, default=60.0)
    args = parser.parse_args()
    blesensor = blesensor_path()
    if not os.path.exists(blesensor):
        print(f'{blesensor} not found: set BLESENSOR (or BLESENSORD) to a release build', file=sys.stderr)
        return 2

    if args.peripheral == 'ours':
        example = os.environ['HEART_RATE_PERIPHERAL']

        def peripheral(port: int) -> list[str]:
            return [example, '--transport', f'tcp:127.0.0.1:{port}', '--name', 'bench', '--log-level', 'notice',
                    '--stream']
    else:
        def peripheral(port: int) -> list[str]:
            return [sys.executable, os.path.join(HERE, 'tools', 'bumble_stream_peripheral.py'), '--port', str(port)]

    state = tempfile.TemporaryDirectory(prefix='bench-central-')

    def ours(port: int, address: str) -> list[str]:
        return [blesensor, 'subscribe', address, '2A37', '--json', '--transport', f'tcp:127.0.0.1:{port}',
                '--state-dir', state.name]

    def bumble(port: int, address: str) -> list[str]:
        return [sys.executable, os.path.join(HERE, 'tools', 'bumble_subscribe_central.py'), '--port', str(port), address]

    print(f'streaming peripheral: {args.peripheral}; notifications {args.first}..{args.last}; {args.rounds} rounds',
          flush=True)
    results: dict[str, list[Result]] = {'ours  ': [], 'bumble': []}
    with state:
        for round in range(1, args.rounds + 1):
            for label, argv in (('ours  ', ours), ('bumble', bumble)):
                results[label].append(await measure(f'round {round} {label}', peripheral, argv,
                                                    args.first, args.last, args.timeout))
    ours_median = summary('ours  ', results['ours  '])
    theirs_median = summary('bumble', results['bumble'])
    print(f'lines printed: ours {results["ours  "][0].sample}\n            bumble {results["bumble"][0].sample}')
    print(f'Bumble uses {theirs_median.cpu_us / ours_median.cpu_us:.1f}x the CPU per received notification that we do')
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
