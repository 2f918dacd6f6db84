"""Idle benchmark: CPU time blesensord uses while advertising with nothing connected.

Not a test: prints figures. Usage: BLESENSORD=path python bench_idle_cpu.py [-s SECONDS]
CPU of every thread, sampled as bench_notify_cpu.CpuMeter does, over the idle window.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_notify_cpu import measure_idle  # noqa: E402


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-s', '--seconds', type=float, default=20.0)
    args = parser.parse_args()
    binary = os.environ.get('BLESENSORD')
    if not binary or not os.path.exists(binary):
        print('set BLESENSORD to the blesensord binary', file=sys.stderr)
        return 2
    await measure_idle(lambda port: [binary, '--transport', f'tcp:127.0.0.1:{port}', '--name', 'idle',
                                     '--state-dir', '/tmp/blesensor-bench'], 'blesensord', args.seconds)
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
