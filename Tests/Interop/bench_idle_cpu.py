"""Idle benchmark: CPU time blesensord uses while advertising with nothing connected.

Not a test: prints figures. Usage: BLESENSORD=path python bench_idle_cpu.py [-s SECONDS]
Reads utime+stime from /proc/PID/stat before and after the idle window.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.daemon import spawn  # noqa: E402
from harness.server import HarnessServer  # noqa: E402


def cpu_seconds(pid: int) -> float:
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    # Fields after the command name: utime and stime are the 12th and 13th.
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('-s', '--seconds', type=float, default=20.0)
    args = parser.parse_args()
    binary = os.environ.get('BLESENSORD')
    if not binary or not os.path.exists(binary):
        print('set BLESENSORD to the blesensord binary', file=sys.stderr)
        return 2
    server = HarnessServer()
    await server.start()
    daemon = await spawn([binary, '--transport', f'tcp:127.0.0.1:{server.port}', '--name', 'idle', '--state-dir', '/tmp/blesensor-bench'])
    try:
        await asyncio.wait_for(server.controller.wait_for_advertising_enable(True), 10)
        await asyncio.sleep(1)
        before = cpu_seconds(daemon.process.pid)
        await asyncio.sleep(args.seconds)
        after = cpu_seconds(daemon.process.pid)
        used = after - before
        print(f'idle while advertising: {used * 1000:.0f} ms CPU in {args.seconds:.0f} s = {100 * used / args.seconds:.2f} % of one core')
    finally:
        await daemon.kill()
        await server.close()
    return 0


if __name__ == '__main__':
    sys.exit(asyncio.run(main()))
