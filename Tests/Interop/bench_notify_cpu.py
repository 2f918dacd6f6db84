"""Whole-process benchmark: CPU (user+sys, summed over the threads' schedstat) a peripheral
process spends per notification that a Bumble central received, ours against a
Bumble peripheral in the same run, both on the harness's Bumble controller over
H4/TCP.

Not a test: prints figures. Usage (release builds give the figures that matter):

    HEART_RATE_PERIPHERAL=path BLESENSORD=path python bench_notify_cpu.py [-n 1000 -N 5000]

Figures:
- stream: `heart-rate-peripheral --stream` (2A37 as fast as updateValue accepts,
  resuming on "ready to update") and tools/bumble_stream_peripheral.py (20-byte
  2A37 as fast as Bumble's host allows); per notification = CPU between the
  n-th and the N-th received notification / (N - n), so start-up, connection
  and discovery cancel out.
- rate 2000: `heart-rate-peripheral --rate 2000` and the Bumble peripheral with
  --rate 2000, the same way: one wake-up per value, so this is mostly the cost
  of a timer wake-up and a socket write.
- idle: CPU of the example and of blesensord advertising with nothing connected.
Each line also gives resident memory (VmRSS, and VmHWM, the peak) from /proc/PID/status.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble.core import UUID  # noqa: E402
from bumble.device import Peer  # noqa: E402

from harness.central import Central  # noqa: E402
from harness.daemon import Daemon, spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402

HRM = UUID.from_16_bits(0x2A37)
HERE = os.path.dirname(os.path.abspath(__file__))


def resident_kib(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of the process in KiB: resident memory now, and its peak."""
    values = {}
    with open(f'/proc/{pid}/status') as status:
        for line in status:
            key, _, rest = line.partition(':')
            if key in ('VmRSS', 'VmHWM'):
                values[key] = int(rest.split()[0])
    return values.get('VmRSS', 0), values.get('VmHWM', 0)


class CpuMeter:
    """CPU time (user+sys) of every thread of a process, to the nanosecond: the first field of
    /proc/PID/task/TID/schedstat. (utime+stime in /proc/PID/stat count 10 ms ticks, too coarse
    for a few microseconds per notification.) A thread that exits takes its schedstat with it, so
    the meter samples every 20 ms in the background and counts each thread at its last sample:
    at most the last 20 ms of an exiting thread go uncounted (the runtime's idle worker threads
    come and go)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.last: dict[str, int] = {}
        self._task = asyncio.get_running_loop().create_task(self._sample_periodically())

    def seconds(self) -> float:
        try:
            tids = os.listdir(f'/proc/{self.pid}/task')
        except FileNotFoundError:
            tids = []
        for tid in tids:
            try:
                with open(f'/proc/{self.pid}/task/{tid}/schedstat') as stat:
                    self.last[tid] = int(stat.read().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue
        return sum(self.last.values()) / 1e9

    async def _sample_periodically(self) -> None:
        while True:
            self.seconds()
            await asyncio.sleep(0.02)

    def stop(self) -> None:
        self._task.cancel()


class Counter:
    """Counts notifications and wakes waiters at thresholds."""

    def __init__(self) -> None:
        self.count = 0
        self._changed = asyncio.Event()

    def __call__(self, _value: bytes) -> None:
        self.count += 1
        self._changed.set()

    async def reach(self, count: int, timeout: float) -> None:
        async def wait() -> None:
            while self.count < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), timeout)


async def measure_stream(argv_for_port, label: str, first: int, last: int, timeout: float) -> tuple[float, float]:
    """Runs one peripheral against a fresh harness; returns (µs CPU per
    notification between `first` and `last`, notifications per second)."""
    server = HarnessServer()
    await server.start()
    central = Central(server.link)
    await central.power_on()
    process: Daemon = await spawn(argv_for_port(server.port))
    meter = CpuMeter(process.process.pid)
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 15)
        record = await central.scan_for(None, timeout=10)
        connection = await central.connect(record.address, timeout=10)
        peer = Peer(connection)
        await asyncio.wait_for(peer.discover_services(), 10)
        for service in peer.services:
            await asyncio.wait_for(service.discover_characteristics(), 10)
        characteristic = next(c for s in peer.services for c in s.characteristics if c.uuid == HRM)
        await asyncio.wait_for(characteristic.discover_descriptors(), 10)
        counter = Counter()
        await asyncio.wait_for(peer.subscribe(characteristic, counter), 10)
        await counter.reach(first, timeout)
        cpu_first, time_first = meter.seconds(), time.monotonic()
        await counter.reach(last, timeout)
        cpu_last, time_last = meter.seconds(), time.monotonic()
        rss, peak = resident_kib(process.process.pid)
        received = counter.count
    except (AssertionError, asyncio.TimeoutError, StopIteration) as error:
        print(f'{label}: failed: {error!r}\n{process.log[-3000:]}', file=sys.stderr)
        raise
    finally:
        meter.stop()
        await process.kill()
        await server.close()
    per_notification = (cpu_last - cpu_first) / (last - first) * 1e6
    rate = (last - first) / (time_last - time_first)
    print(f'{label}: {per_notification:.1f} µs CPU per notification '
          f'({(cpu_last - cpu_first) * 1000:.1f} ms for notifications {first}..{last}, '
          f'RSS {rss / 1024:.1f} MiB, peak {peak / 1024:.1f} MiB, '
          f'{rate:.0f} notifications/s received, {received} in all)')
    return per_notification, rate


async def measure_idle(argv_for_port, label: str, seconds: float) -> float:
    server = HarnessServer()
    await server.start()
    process = await spawn(argv_for_port(server.port))
    meter = CpuMeter(process.process.pid)
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 15)
        await asyncio.sleep(1)  # let start-up work finish before the window opens
        before = meter.seconds()
        await asyncio.sleep(seconds)
        used = meter.seconds() - before
        rss, _ = resident_kib(process.process.pid)
    finally:
        meter.stop()
        await process.kill()
        await server.close()
    print(f'{label}: idle while advertising: {used * 1000:.2f} ms CPU in {seconds:.0f} s '
          f'= {100 * used / seconds:.3f} % of one core, RSS {rss / 1024:.1f} MiB')
    return used


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-n', '--first', type=int, default=1000)
    parser.add_argument('-N', '--last', type=int, default=5000)
    parser.add_argument('--idle-seconds', type=float, default=10.0)
    parser.add_argument('--timeout', type=float, default=120.0)
    args = parser.parse_args()
    example = os.environ.get('HEART_RATE_PERIPHERAL')
    daemon = os.environ.get('BLESENSORD')
    if not example or not os.path.exists(example):
        print('set HEART_RATE_PERIPHERAL to the heart-rate-peripheral binary', file=sys.stderr)
        return 2

    def ours(*extra: str):
        return lambda port: [example, '--transport', f'tcp:127.0.0.1:{port}', '--name', 'bench',
                             '--log-level', 'notice', *extra]

    def bumble(*extra: str):
        return lambda port: [sys.executable, os.path.join(HERE, 'tools', 'bumble_stream_peripheral.py'),
                             '--port', str(port), *extra]

    ours_stream, _ = await measure_stream(ours('--stream'), 'ours   --stream', args.first, args.last, args.timeout)
    theirs, _ = await measure_stream(bumble(), 'bumble stream  ', args.first, args.last, args.timeout)
    print(f'stream: Bumble uses {theirs / ours_stream:.1f}x the CPU per notification that we do (goal: 10x or more)')
    ours_rate, _ = await measure_stream(ours('--rate', '2000'), 'ours   --rate 2000', args.first, args.last, args.timeout)
    theirs_rate, _ = await measure_stream(bumble('--rate', '2000'), 'bumble --rate 2000', args.first, args.last, args.timeout)
    print(f'rate 2000: Bumble uses {theirs_rate / ours_rate:.1f}x the CPU per notification that we do')
    await measure_idle(ours(), 'heart-rate-peripheral', args.idle_seconds)
    if daemon and os.path.exists(daemon):
        await measure_idle(lambda port: [daemon, '--transport', f'tcp:127.0.0.1:{port}', '--name', 'idle',
                                         '--state-dir', '/tmp/blesensor-bench'], 'blesensord', args.idle_seconds)
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
