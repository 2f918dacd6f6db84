"""H4 over TCP server that exposes one HarnessController to one host.

It owns the socket itself (unlike Bumble's tcp-server transport): one host at
a time (later ones are refused by closing them), a fresh H4 parser per
connection, and the controller reset when the host drops. It runs in the
caller's asyncio loop.
"""

from __future__ import annotations

import asyncio
import logging
import socket

from .controller import HarnessController, HarnessLink

logger = logging.getLogger(__name__)


class H4ProtocolError(Exception):
    """The host sent bytes that are not an H4 stream."""


class H4Parser:
    """Splits an H4 byte stream into packets (indicator byte included)."""

    # indicator -> (header length after the indicator, function(header) -> body length)
    _HEADERS = {
        0x01: (3, lambda h: h[2]),  # command
        0x02: (4, lambda h: h[2] | (h[3] << 8)),  # ACL
        0x03: (3, lambda h: h[2]),  # SCO
        0x04: (2, lambda h: h[1]),  # event
        0x05: (4, lambda h: (h[2] | (h[3] << 8)) & 0x3FFF),  # ISO
    }

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer.extend(data)
        packets = []
        while self._buffer:
            indicator = self._buffer[0]
            if indicator not in self._HEADERS:
                raise H4ProtocolError(f'unknown H4 packet indicator 0x{indicator:02X}')
            header_length, body_length = self._HEADERS[indicator]
            if len(self._buffer) < 1 + header_length:
                break
            total = 1 + header_length + body_length(self._buffer[1 : 1 + header_length])
            if len(self._buffer) < total:
                break
            packets.append(bytes(self._buffer[:total]))
            del self._buffer[:total]
        return packets


class _HostSink:
    """Controller output to the connected host's socket."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    def on_packet(self, packet: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(packet)


class HarnessServer:
    """Owns the link, the controller under the host's control, and the socket."""

    def __init__(
        self,
        link: HarnessLink | None = None,
        public_address: str = '00:1B:DC:F0:00:01',
        name: str = 'dut-controller',
    ) -> None:
        self.link = link or HarnessLink()
        self.controller = HarnessController(name, link=self.link, public_address=public_address)
        self.port: int | None = None
        self.host_connections = 0  # accepted host connections so far
        self.refused_connections = 0
        self._server: asyncio.base_events.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._host_connected = asyncio.Event()
        self._host_gone = asyncio.Event()
        self._host_gone.set()
        self._handlers: set[asyncio.Task] = set()

    # -- lifecycle ---------------------------------------------------------
    async def start(self, port: int = 0) -> int:
        """Listen on 127.0.0.1:port (0: any free port). Returns the port."""
        self._server = await asyncio.start_server(
            self._on_client, host='127.0.0.1', port=port, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]
        logger.info('harness listening on 127.0.0.1:%d', self.port)
        return self.port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self.drop_host()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.wait(self._handlers, timeout=2)
        if self._server is not None:
            try:
                await asyncio.wait_for(self._server.wait_closed(), 2)
            except asyncio.TimeoutError:
                logger.warning('server did not close in time')
        self.controller.reset_state()

    # -- observation -------------------------------------------------------
    @property
    def host_connected(self) -> bool:
        return self._writer is not None

    async def wait_host_connected(self, timeout: float) -> None:
        await asyncio.wait_for(self._host_connected.wait(), timeout)

    async def wait_host_gone(self, timeout: float) -> None:
        await asyncio.wait_for(self._host_gone.wait(), timeout)

    async def wait_idle(self, timeout: float) -> None:
        """No host connected and no connection being served: a host killed right after it
        connected may still have its connection accepted (and ended) after its death, which
        would turn away the next host if it came meanwhile."""
        async def idle() -> None:
            await asyncio.sleep(0)  # let an accept that is already due run first
            while self._handlers or self._writer is not None:
                await asyncio.wait(list(self._handlers) or [asyncio.ensure_future(self._host_gone.wait())])
        await asyncio.wait_for(idle(), timeout)

    def drop_host(self) -> None:
        """Abort the host's TCP connection (as if the controller vanished)."""
        if self._writer is not None:
            transport = self._writer.transport
            transport.abort()

    # -- connection handling -----------------------------------------------
    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        try:
            if self._writer is not None:
                # One host at a time: a second one would steal the output.
                self.refused_connections += 1
                writer.transport.abort()
                return
            await self._serve_host(reader, writer)
        finally:
            if task is not None:
                self._handlers.discard(task)

    async def _serve_host(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info('socket')
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._writer = writer
        self.host_connections += 1
        self._host_gone.clear()
        self._host_connected.set()
        self.controller.host = _HostSink(writer)
        parser = H4Parser()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for packet in parser.feed(data):
                    self.controller.on_packet(packet)
        except H4ProtocolError as error:
            self.controller.violations.append(str(error))
            logger.warning('dropping host: %s', error)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self.controller.host = None
            self.controller.reset_state()
            self._writer = None
            self._host_connected.clear()
            self._host_gone.set()
            writer.transport.abort()


def free_port() -> int:
    """A port that was free a moment ago (for starting the daemon first)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def main() -> None:
    """Run a harness standalone: prints the port, serves until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--port', type=int, default=0)
    args = parser.parse_args()

    async def run() -> None:
        server = HarnessServer()
        port = await server.start(args.port)
        print(f'PORT {port}', flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await server.close()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass


if __name__ == '__main__':
    main()
