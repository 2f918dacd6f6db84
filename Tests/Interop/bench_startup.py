#!/usr/bin/env python3
"""Startup benchmark: time from spawning blesensord to the harness receiving
LE Set Advertising Enable(1). Not a test.

    BLESENSORD=... Tests/Interop/.venv/bin/python Tests/Interop/bench_startup.py [-n 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.daemon import spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402


async def one_run(binary: str, timeout: float) -> float:
    server = HarnessServer()
    port = await server.start()
    daemon = None
    try:
        enabled = server.controller.wait_for_advertising_enable(True)
        started = time.monotonic()
        daemon = await spawn([binary, '--transport', f'tcp:127.0.0.1:{port}', '--name', 'bench'])
        record = await asyncio.wait_for(enabled, timeout)
        return record.time - started
    finally:
        if daemon is not None:
            await daemon.kill()
        await server.close()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('-n', '--runs', type=int, default=7)
    parser.add_argument('--timeout', type=float, default=10.0)
    parser.add_argument('--binary', default=os.environ.get('BLESENSORD'))
    args = parser.parse_args()
    if not args.binary or not os.access(args.binary, os.X_OK):
        print('bench_startup: set BLESENSORD (or --binary) to the blesensord binary', file=sys.stderr)
        return 2
    times = []
    for i in range(args.runs):
        elapsed = await one_run(args.binary, args.timeout)
        times.append(elapsed)
        print(f'run {i + 1}: {elapsed * 1000:.1f} ms', flush=True)
    print(f'startup to advertising enabled over {len(times)} runs: '
          f'median {statistics.median(times) * 1000:.1f} ms, '
          f'min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms')
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
