#!/usr/bin/env python3
"""The reference for the central benchmark (bench_central_cpu.py): a Bumble central (Bumble's
own host, H4 over TCP to a harness controller) doing what `blesensor subscribe ADDRESS 2A37
--json` does: connect, discover, subscribe to 2A37 notifications and print one JSON line per
notification as it comes (one write per line, as the CLI does), in the CLI's format:

    {"event":"subscribed","kind":"notifications","uuid":"2A37"}
    {"decoded":"72 bpm","kind":"notification","uuid":"2A37","value":"1048…"}

    bumble_subscribe_central.py --port PORT ADDRESS [--count N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys

from bumble import hci
from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.transport import open_transport

HEART_RATE, HRM = UUID.from_16_bits(0x180D), UUID.from_16_bits(0x2A37)


def line(obj: dict) -> None:
    os.write(1, (json.dumps(obj, sort_keys=True, separators=(',', ':')) + '\n').encode())


def decoded(value: bytes) -> str:
    """Heart rate from the flags' format bit: 8 or 16 bits (the CLI decodes more)."""
    if len(value) < 2:
        return ''
    bpm = int.from_bytes(value[1:3], 'little') if value[0] & 1 and len(value) >= 3 else value[1]
    return f'{bpm} bpm'


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('address')
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--count', type=int, default=0, help='stop after this many; 0: never')
    args = parser.parse_args()

    async with await open_transport(f'tcp-client:127.0.0.1:{args.port}') as (source, sink):
        device = Device.with_hci('bumble-central', hci.Address('C0:5E:00:00:00:02'), source, sink)
        await device.power_on()
        connection = await device.connect(hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS),
                                          timeout=10)
        peer = Peer(connection)
        [service] = await peer.discover_service(HEART_RATE)
        [characteristic] = await peer.discover_characteristics([HRM], service)
        await characteristic.discover_descriptors()
        done = asyncio.Event()
        received = 0

        def on_value(value: bytes) -> None:
            nonlocal received
            line({'decoded': decoded(value), 'kind': 'notification', 'uuid': '2A37', 'value': value.hex()})
            received += 1
            if received == args.count:
                done.set()

        await peer.subscribe(characteristic, on_value)
        line({'event': 'subscribed', 'kind': 'notifications', 'uuid': '2A37'})
        connection.on('disconnection', lambda _reason: done.set())
        await done.wait()


if __name__ == '__main__':
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    asyncio.run(main())
