"""Running the `blesensor` CLI next to the daemon under test."""

from __future__ import annotations

import asyncio
import os


def cli() -> str:
    """`blesensor`, beside $BLESENSORD."""
    return os.path.join(os.path.dirname(os.environ['BLESENSORD']), 'blesensor')


async def run_cli(*args: str, timeout: float = 10.0) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        cli(), *args, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        raise AssertionError(f'blesensor {" ".join(args)} still running after {timeout} s') from None
    return process.returncode, out.decode(), err.decode()
