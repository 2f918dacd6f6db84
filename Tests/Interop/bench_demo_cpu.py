"""Whole-process figures for demo mode: `blesensord --board simulated --transport virtual` (what
scripts/demo.sh runs without Bluetooth hardware), where the daemon's peripheral and its virtual
phone (the demo central, a CentralManager on a controller of its own) run in one process and the
phone subscribes to every value.

Not a test: prints figures. Usage (release builds; OTHER is an optional second binary, e.g. an
older build, measured alternately in the same run):

    BLESENSORD=path [OTHER=path] Tests/Interop/.venv/bin/python Tests/Interop/bench_demo_cpu.py [-s 20 --rounds 3]

Figures per round: CPU (user+sys of every thread, as bench_notify_cpu's CpuMeter) as % of one
core over the window, values the demo central logged per second, VmRSS. The window starts once
the demo central has logged its first value.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_notify_cpu import CpuMeter, resident_kib  # noqa: E402

# A logged value, not the tree or the subscriptions: "demo central: 2A37 Heart Rate Measurement: …".
VALUE_MARKERS = ('demo central: 2A37 ', 'demo central: 2A1C ', 'demo central: 2A6E ', 'demo central: 2A19 ')


async def measure(binary: str, seconds: float) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as state:
        process = await asyncio.create_subprocess_exec(
            binary, '--board', 'simulated', '--transport', 'virtual', '--state-dir', state, '--control-socket', os.path.join(state, 'control.sock'),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        values = 0

        async def read_log(started: asyncio.Event) -> None:
            nonlocal values
            assert process.stderr is not None
            async for raw in process.stderr:
                line = raw.decode(errors='replace')
                if any(marker in line for marker in VALUE_MARKERS):
                    values += 1
                    started.set()

        started = asyncio.Event()
        reader = asyncio.create_task(read_log(started))
        try:
            await asyncio.wait_for(started.wait(), 30)
            meter = CpuMeter(process.pid)
            cpu0, values0, t0 = meter.seconds(), values, time.monotonic()
            await asyncio.sleep(seconds)  # the measuring window (a benchmark, not a test)
            cpu1, values1, t1 = meter.seconds(), values, time.monotonic()
            rss, _ = resident_kib(process.pid)
            meter.stop()
            return 100 * (cpu1 - cpu0) / (t1 - t0), (values1 - values0) / (t1 - t0), rss
        finally:
            process.kill()
            await process.wait()
            reader.cancel()


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-s', '--seconds', type=float, default=20.0)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    binaries = [('this ', os.environ.get('BLESENSORD'))]
    if os.environ.get('OTHER'):
        binaries.append(('other', os.environ['OTHER']))
    if not binaries[0][1] or not os.path.exists(binaries[0][1]):
        print('set BLESENSORD to the blesensord binary', file=sys.stderr)
        return 2
    results: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in binaries}
    for round in range(1, args.rounds + 1):
        for label, binary in binaries:
            cpu, rate, rss = await measure(binary, args.seconds)
            results[label].append((cpu, rate, rss))
            print(f'round {round} {label}: {cpu:5.2f} % of a core, {rate:6.1f} values/s logged, RSS {rss / 1024:5.1f} MiB', flush=True)
    for label, rows in results.items():
        print(f'median {label}: {statistics.median(r[0] for r in rows):5.2f} % of a core, '
              f'{statistics.median(r[1] for r in rows):6.1f} values/s, RSS {statistics.median(r[2] for r in rows) / 1024:5.1f} MiB')
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
