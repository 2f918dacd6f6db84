#!/usr/bin/env python3
"""Stand-in for `blesensord` built on a Bumble host, implementing the daemon's
command-line and logging contract. It exists only to validate the interop
tests while the Swift daemon is being written:

    BLESENSORD=Tests/Interop/tools/fake_blesensord.py Tests/Interop/run-tests.sh

Its advertising bytes come from harness.placement, so the advertising tests
are tautological for it; they check the harness pipeline, not placement.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from bumble import hci  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

from harness.placement import place  # noqa: E402


def log(message: str) -> None:
    print(f'{time.strftime("%H:%M:%S")} blesensord: {message}', file=sys.stderr, flush=True)


async def open_with_retry(host: str, port: int, deadline: float):
    while True:
        try:
            return await open_transport(f'tcp-client:{host}:{port}')
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def run(args: argparse.Namespace) -> int:
    kind, _, endpoint = args.transport.partition(':')
    host, _, port = endpoint.rpartition(':')
    if kind != 'tcp' or not port.isdigit():
        log(f'unsupported transport {args.transport!r}')
        return 2
    try:
        transport = await open_with_retry(host, int(port), time.monotonic() + 30)
    except OSError as error:
        log(f'cannot reach controller: {error}')
        return 1
    placement = place(args.name, args.service_uuid)
    for uuid in placement.did_not_fit:
        log(f'warning: service UUID {uuid} did not fit in advertising data')
    device = Device.with_hci(args.name, hci.Address('C2:11:22:33:44:55'), transport.source, transport.sink)
    await device.power_on()
    own = hci.OwnAddressType.PUBLIC if args.address == 'public' else hci.OwnAddressType.RANDOM
    connections = set()

    async def advertise() -> None:
        await device.start_advertising(
            own_address_type=own,
            advertising_data=placement.advertising_data,
            scan_response_data=placement.scan_response,
            advertising_interval_min=100,
            advertising_interval_max=100,
        )
        log('advertising enabled')

    def on_connection(connection) -> None:
        connections.add(connection)
        log(f'central connected {connection.peer_address}')

        def on_disconnection(reason: int) -> None:
            connections.discard(connection)
            log(f'central disconnected reason=0x{reason:02X}')
            if len(connections) < args.max_connections:
                asyncio.ensure_future(advertise())

        connection.on('disconnection', on_disconnection)
        if len(connections) < args.max_connections:
            asyncio.ensure_future(advertise())

    device.on('connection', on_connection)
    await advertise()

    stop = asyncio.get_running_loop().create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, lambda: stop.done() or stop.set_result(0))
    lost = asyncio.ensure_future(transport.source.wait_for_termination())
    done, _ = await asyncio.wait([stop, lost], return_when=asyncio.FIRST_COMPLETED)
    if lost in done:
        log('controller link lost: the HCI transport closed; check the controller and restart')
        return 1
    await device.stop_advertising()
    await transport.close()
    return 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--transport', required=True)
    parser.add_argument('--name', required=True)
    parser.add_argument('--service-uuid', action='append', default=[])
    parser.add_argument('--max-connections', type=int, default=1)
    parser.add_argument('--address', choices=['random', 'public'], default='random')
    parser.add_argument('--btsnoop')
    parser.add_argument('--log-level', default='info')
    sys.exit(asyncio.run(run(parser.parse_args())))


if __name__ == '__main__':
    main()
