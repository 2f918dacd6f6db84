#!/usr/bin/env python3
"""The reference for the notification benchmark: a Bumble peripheral (Bumble's
own host, H4 over TCP to the harness controller) with a Heart Rate service that
streams 20-byte 2A37 notifications to a subscribed central as fast as its host
allows: the next one is queued whenever fewer than the controller's ACL buffers
are waiting for completion, as our `heart-rate-peripheral --stream` does. With
--rate R it sends one every 1/R s instead, on a drift-free schedule, as our
`heart-rate-peripheral --rate R` does (a pending notification is not stacked
up behind a full queue: the tick is skipped, like our latest-value policy).

    bumble_stream_peripheral.py --port PORT [--name NAME] [--rate R]

Logs 'advertising enabled' when ready and 'subscribed' when streaming starts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

from bumble import hci  # noqa: E402
from bumble.core import UUID, AdvertisingData  # noqa: E402
from bumble.device import Device  # noqa: E402
from bumble.gatt import Characteristic, Service  # noqa: E402
from bumble.transport import open_transport  # noqa: E402

# Flags 0x10 (RR-intervals present), 8-bit heart rate, nine RR-intervals: 20 bytes.
VALUE = bytes([0x10, 72]) + bytes(18)


def log(message: str) -> None:
    print(f'bumble-stream-peripheral: {message}', file=sys.stderr, flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--name', default='bumble-stream')
    parser.add_argument('--rate', type=float, default=0.0, help='notifications per second; 0 streams')
    args = parser.parse_args()

    async with await open_transport(f'tcp-client:127.0.0.1:{args.port}') as (source, sink):
        device = Device.with_hci(args.name, hci.Address('F0:5E:00:00:00:01'), source, sink)
        measurement = Characteristic(
            UUID.from_16_bits(0x2A37), Characteristic.Properties.NOTIFY, Characteristic.READABLE, b''
        )
        device.add_service(Service(UUID.from_16_bits(0x180D), [measurement]))
        device.advertising_data = bytes(
            AdvertisingData(
                [
                    (AdvertisingData.FLAGS, bytes([0x06])),
                    (AdvertisingData.COMPLETE_LOCAL_NAME, args.name.encode()),
                ]
            )
        )
        subscribed = asyncio.Event()
        connections = []

        def on_connection(connection) -> None:
            connections.append(connection)

        def on_subscription(_connection, notify_enabled: bool, _indicate_enabled: bool) -> None:
            if notify_enabled:
                subscribed.set()

        device.on('connection', on_connection)
        measurement.on('subscription', on_subscription)
        await device.power_on()
        await device.start_advertising(auto_restart=False)
        log('advertising enabled')
        await subscribed.wait()
        log('subscribed')

        queue = device.host.le_acl_packet_queue or device.host.acl_packet_queue
        flow = asyncio.Event()
        queue.on('flow', flow.set)
        connection = connections[-1]
        if args.rate > 0:
            await send_periodically(device, connection, measurement, queue, args.rate)
        while True:
            # Keep the controller's buffers busy and one packet waiting, no more.
            while queue.pending > queue.max_in_flight:
                flow.clear()
                await flow.wait()
            await device.notify_subscriber(connection, measurement, VALUE)


async def send_periodically(device, connection, measurement, queue, rate: float) -> None:
    loop = asyncio.get_running_loop()
    period = 1.0 / rate
    deadline = loop.time()
    while True:
        deadline += period
        delay = deadline - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            # Late: skip the ticks that passed instead of bunching them up.
            deadline = loop.time()
        if queue.pending <= queue.max_in_flight:
            await device.notify_subscriber(connection, measurement, VALUE)


if __name__ == '__main__':
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    asyncio.run(main())
