#!/usr/bin/env python3
"""The reference for the central benchmark (bench_central_cpu.py): a Bumble central (Bumble's
own host, H4 over TCP to a harness controller) doing what `blesensor subscribe ADDRESS 2A37
--json` does: connect, discover, subscribe to 2A37 notifications and print one JSON line per
notification as it comes (one write per line, as the CLI does), the CLI's line to the byte
(2A37 decoded to the same text, keys sorted):

    {"event":"subscribed","kind":"notifications","uuid":"2A37"}
    {"decoded":"Heart rate: 60 bpm; Value format: uint8; …","kind":"notification","uuid":"2A37","value":"103c…"}

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


CONTACT = {2: 'supported, not detected', 3: 'supported, detected'}


def decoded(value: bytes) -> str:
    """2A37 as the CLI's "decoded" text (absent fields left out), so both centrals print the same
    line: flags, heart rate (8 or 16 bits), sensor contact, energy expended, RR-intervals."""
    flags, at = value[0], 1
    if flags & 1:
        bpm, at = int.from_bytes(value[1:3], 'little'), 3
    else:
        bpm, at = value[1], 2
    fields = [f'Heart rate: {bpm} bpm', f'Value format: {"uint16" if flags & 1 else "uint8"}',
              f'Sensor contact: {CONTACT.get(flags >> 1 & 3, "not supported")}']
    if flags & 0x08:
        fields.append(f'Energy expended: {int.from_bytes(value[at:at + 2], "little")} kJ')
        at += 2
    rr = [int.from_bytes(value[i:i + 2], 'little') for i in range(at, len(value) - 1, 2)] if flags & 0x10 else []
    if rr:
        fields.append('RR-intervals (1/1024 s): ' + ', '.join(map(str, rr)))
        fields.append('RR-intervals: ' + ', '.join(f'{round(r * 10000 / 1024) / 10:.1f} ms' for r in rr))
    return '; '.join(fields)


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
