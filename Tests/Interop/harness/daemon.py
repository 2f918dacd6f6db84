"""The daemon under test as an asyncio subprocess with its stderr collected."""

from __future__ import annotations

import asyncio
import time


class Daemon:
    """A running blesensord with its stderr collected line by line."""

    def __init__(self, process: asyncio.subprocess.Process, argv: list[str]) -> None:
        self.control_socket: str | None = None
        self.process = process
        self.argv = argv
        self.spawned_at = time.monotonic()
        self.lines: list[str] = []
        self._changed = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        while True:
            line = await self.process.stderr.readline()
            if not line:
                break
            self.lines.append(line.decode('utf-8', 'replace').rstrip('\n'))
            self._changed.set()
        self._changed.set()

    @property
    def log(self) -> str:
        return '\n'.join(self.lines)

    def count(self, text: str) -> int:
        return sum(text in line for line in self.lines)

    async def wait_for_log(self, text: str, timeout: float = 5.0, occurrences: int = 1) -> str:
        async def wait() -> str:
            while True:
                matching = [line for line in self.lines if text in line]
                if len(matching) >= occurrences:
                    return matching[occurrences - 1]
                if self._reader.done():
                    raise AssertionError(
                        f'daemon exited (code {self.process.returncode}) before logging '
                        f'{text!r}; its log:\n{self.log}'
                    )
                self._changed.clear()
                await self._changed.wait()

        try:
            return await asyncio.wait_for(wait(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(
                f'daemon did not log {text!r} within {timeout} s; its log:\n{self.log}'
            ) from None

    async def wait_exit(self, timeout: float) -> int:
        try:
            code = await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            raise AssertionError(
                f'daemon still running after {timeout} s; its log:\n{self.log}'
            ) from None
        await asyncio.wait_for(self._reader, 2)
        return code

    def send_signal(self, sig: int) -> None:
        if self.process.returncode is None:
            self.process.send_signal(sig)

    async def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
            try:
                await asyncio.wait_for(self.process.wait(), 5)
            except asyncio.TimeoutError:
                pass
        self._reader.cancel()


async def spawn(argv: list[str]) -> Daemon:
    process = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    return Daemon(process, argv)
