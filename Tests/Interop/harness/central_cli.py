"""`blesensor`'s central commands (scan, explore, read, write, subscribe) as subprocesses,
always with a timeout: one-shot runs, and streaming runs whose stdout lines are awaited
as they come (the subscribe barrier line, values)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def blesensor_path() -> str:
    """$BLESENSOR, else `blesensor` beside $BLESENSORD, else the debug build in the repo."""
    if os.environ.get('BLESENSOR'):
        return os.environ['BLESENSOR']
    if os.environ.get('BLESENSORD'):
        return os.path.join(os.path.dirname(os.environ['BLESENSORD']), 'blesensor')
    return str(REPO / '.build' / 'debug' / 'blesensor')


_availability: str | None = None  # '' when available, else why not


def central_commands_missing() -> str:
    """Why `blesensor scan --help` does not work ('' when it does). Checked once."""
    global _availability
    if _availability is None:
        path = blesensor_path()
        try:
            done = subprocess.run([path, 'scan', '--help'], stdin=subprocess.DEVNULL,
                                  capture_output=True, timeout=10)
            _availability = '' if done.returncode == 0 else (
                f'`{path} scan --help` exited {done.returncode}: '
                f'{(done.stderr or done.stdout).decode(errors="replace").strip()[:200]}')
        except (OSError, subprocess.TimeoutExpired) as error:
            _availability = f'`{path} scan --help` failed: {error}'
    return _availability


def require_central_commands() -> None:
    """Fails the test when `blesensor`'s central commands cannot run (not built beside blesensord,
    or broken): a missing binary must not turn these tests into silent skips."""
    missing = central_commands_missing()
    if missing:
        pytest.fail(f'blesensor central commands not available: {missing} '
                    '(build it: swift build --product blesensor, or set BLESENSOR)')


class CliRun:
    """One `blesensor` process: stdout lines collected as they are printed, stderr kept."""

    def __init__(self, process: asyncio.subprocess.Process, argv: list[str]) -> None:
        self.process, self.argv = process, argv
        self.lines: list[str] = []
        self.err_lines: list[str] = []
        self._changed = asyncio.Event()
        self._readers = [asyncio.ensure_future(self._read(process.stdout, self.lines)),
                         asyncio.ensure_future(self._read(process.stderr, self.err_lines))]

    async def _read(self, stream: asyncio.StreamReader, into: list[str]) -> None:
        while line := await stream.readline():
            into.append(line.decode('utf-8', 'replace').rstrip('\n'))
            self._changed.set()
        self._changed.set()

    @property
    def out(self) -> str:
        return '\n'.join(self.lines)

    @property
    def err(self) -> str:
        return '\n'.join(self.err_lines)

    def describe(self) -> str:
        return (f'blesensor {" ".join(self.argv[1:])} (exit {self.process.returncode})\n'
                f'stdout:\n{self.out}\nstderr:\n{self.err}')

    def json_lines(self) -> list[dict]:
        parsed = []
        for line in self.lines:
            try:
                parsed.append(json.loads(line))
            except json.JSONDecodeError:
                raise AssertionError(f'not a JSON line: {line!r}\n{self.describe()}') from None
        return parsed

    async def wait_line(self, predicate: Callable[[dict], bool], what: str, timeout: float = 10.0) -> dict:
        """The first JSON stdout line matching; fails if the process ends or time runs out."""
        return await self._wait_for(lambda: next((line for line in self.json_lines() if predicate(line)), None),
                                    what, timeout)

    async def wait_text(self, text: str, what: str, timeout: float = 10.0) -> str:
        """The first stdout or stderr line containing `text` (text output)."""
        return await self._wait_for(lambda: next((line for line in self.lines + self.err_lines if text in line), None),
                                    what, timeout)

    async def _wait_for(self, find: Callable[[], object], what: str, timeout: float):
        """What `find()` returns once it is not None, checked after each new output; fails when the
        process's output ends first or `timeout` (a failure bound) passes."""
        async def wait():
            while True:
                found = find()
                if found is not None:
                    return found
                if all(r.done() for r in self._readers):
                    raise AssertionError(f'blesensor ended before printing {what}\n{self.describe()}')
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(f'no {what} within {timeout} s\n{self.describe()}') from None

    async def wait_exit(self, timeout: float) -> int:
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
            await asyncio.wait_for(asyncio.gather(*self._readers), 5)
        except asyncio.TimeoutError:
            await self.kill()
            raise AssertionError(f'blesensor still running after {timeout} s\n{self.describe()}') from None
        return self.process.returncode

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()
        for reader in self._readers:
            reader.cancel()


class CentralCli:
    """`blesensor` on the harness server's controller, bonds in `state_dir`."""

    def __init__(self, path: str, server, state_dir: Path) -> None:
        self.path, self.server, self.state_dir = path, server, state_dir
        self.runs: list[CliRun] = []

    def transport(self) -> list[str]:
        return ['--transport', f'tcp:127.0.0.1:{self.server.port}']

    async def start(self, command: str, *args: str, state_dir: Path | None = None) -> CliRun:
        """Starts `blesensor COMMAND ARGS`; connecting commands get --state-dir too."""
        # One host at a time: the previous run's connection must be over on the server's side.
        await self.server.wait_idle(5)
        argv = [self.path, command, *args, *self.transport()]
        if command != 'scan':
            argv += ['--state-dir', str(state_dir or self.state_dir), '--connect-timeout', '5']
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        run = CliRun(process, argv)
        self.runs.append(run)
        return run

    async def run(self, command: str, *args: str, timeout: float = 20.0,
                  state_dir: Path | None = None) -> CliRun:
        """Runs to the end (a failure when it outlives `timeout`)."""
        run = await self.start(command, *args, state_dir=state_dir)
        await run.wait_exit(timeout)
        return run

    async def close(self) -> None:
        for run in self.runs:
            await run.kill()


def error_line(run: CliRun) -> str:
    """The one `error: …` line on stderr (exit 1)."""
    errors = [line for line in run.err_lines if line.startswith('error:')]
    assert len(errors) == 1, f'expected one "error:" line on stderr\n{run.describe()}'
    return errors[0]
