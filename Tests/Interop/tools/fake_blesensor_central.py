#!/usr/bin/env python3
"""A Bumble stand-in for `blesensor scan|read|subscribe` (a subset of the central contract,
no pairing, no explore/write), used to check test_central_*.py's plumbing before the Swift
commands existed: BLESENSOR=$PWD/Tests/Interop/tools/fake_blesensor_central.py."""

from __future__ import annotations

import argparse
import asyncio
import json
import struct
import sys

from bumble import hci
from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.transport import open_transport


def uuid_text(uuid: UUID) -> str:
    return uuid.to_hex_str('-').upper()


def parse_ad(data: bytes, into: dict) -> None:
    i = 0
    while i < len(data) and data[i]:
        length, kind, payload = data[i], data[i + 1], data[i + 2:i + 1 + data[i]]
        i += 1 + length
        if kind == 0x01:
            into['flags'] = payload[0]
        elif kind in (0x08, 0x09):
            into['name'] = payload.decode()
        elif kind in (0x02, 0x03):
            into['services'] += [f'{v:04X}' for v in struct.unpack(f'<{len(payload) // 2}H', payload)]
        elif kind in (0x06, 0x07):
            into['services'] += [uuid_text(UUID.from_bytes(payload[j:j + 16])) for j in range(0, len(payload), 16)]
        elif kind == 0x16:
            into['serviceData'][f'{struct.unpack_from("<H", payload)[0]:04X}'] = payload[2:].hex()
        elif kind == 0xFF:
            into['manufacturerData'].append({'company': struct.unpack_from('<H', payload)[0], 'data': payload[2:].hex()})
        elif kind == 0x0A:
            into['txPower'] = struct.unpack('<b', payload)[0]
        elif kind == 0x19:
            into['appearance'] = struct.unpack('<H', payload)[0]


async def open_device(transport_arg: str):
    spec = 'tcp-client:' + transport_arg.split(':', 1)[1]
    transport = await open_transport(spec)
    device = Device.with_hci('fake-cli', hci.Address('C0:00:00:00:00:CF'), transport.source, transport.sink)
    await device.power_on()
    return transport, device


async def scan(args) -> int:
    transport, device = await open_device(args.transport)
    seen: dict[str, tuple] = {}
    data: dict[str, dict[int, bytes]] = {}

    def on_report(report) -> None:
        address = report.address.to_string(False)
        parts = data.setdefault(address, {})
        parts[0x04 if report.event_type == 0x04 else 0x00] = bytes(report.data)
        record = {'address': address, 'addressType': 'public' if report.address.is_public else 'random',
                  'rssi': report.rssi, 'connectable': True, 'scanResponse': 0x04 in parts,
                  'services': [], 'serviceData': {}, 'manufacturerData': []}
        for kind in (0x00, 0x04):
            if kind in parts:
                parse_ad(parts[kind], record)
        if args.service and not set(s.upper() for s in args.service) & set(record['services']):
            return
        key = json.dumps(record, sort_keys=True)
        if seen.get(address) != key:
            seen[address] = key
            print(json.dumps(record) if args.json else f'{address} {record.get("name", "")}', flush=True)

    device.host.on('advertising_report', on_report)
    await device.start_scanning(legacy=True, active=not args.passive, filter_duplicates=False)
    await asyncio.sleep(float(args.duration))
    await transport.close()
    return 0


async def connect(args):
    transport, device = await open_device(args.transport)
    connection = await device.connect(hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS), timeout=5)
    peer = Peer(connection)
    await peer.discover_all()
    [characteristic, *_] = [c for s in peer.services for c in s.characteristics if c.uuid == UUID(args.uuid)]
    return transport, characteristic


async def read(args) -> int:
    transport, characteristic = await connect(args)
    try:
        value = await characteristic.read_value()
    except Exception as error:
        print(f'error: read {args.uuid} failed: {error}', file=sys.stderr)
        return 1
    print(json.dumps({'uuid': uuid_text(characteristic.uuid), 'handle': characteristic.handle, 'value': value.hex()}))
    await transport.close()
    return 0


async def subscribe(args) -> int:
    transport, characteristic = await connect(args)
    got: asyncio.Queue = asyncio.Queue()
    await characteristic.subscribe(got.put_nowait, prefer_notify=not args.indicate)
    kind = 'notification' if characteristic.properties & 0x10 and not args.indicate else 'indication'
    print(json.dumps({'event': 'subscribed', 'uuid': uuid_text(characteristic.uuid), 'kind': kind + 's'}), flush=True)
    for _ in range(args.count):
        value = await got.get()
        print(json.dumps({'uuid': uuid_text(characteristic.uuid), 'kind': kind, 'value': bytes(value).hex()}), flush=True)
    await transport.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest='command', required=True)
    for name in ('scan', 'read', 'subscribe'):
        command = commands.add_parser(name)
        command.add_argument('--transport', default='auto')
        command.add_argument('--json', action='store_true')
        if name == 'scan':
            command.add_argument('--service', action='append', default=[])
            command.add_argument('--duration', default='10')
            command.add_argument('--passive', action='store_true')
        else:
            command.add_argument('address')
            command.add_argument('uuid')
            command.add_argument('--state-dir')
            command.add_argument('--connect-timeout')
            command.add_argument('--count', type=int, default=1)
            command.add_argument('--indicate', action='store_true')
    args = parser.parse_args()
    return asyncio.run({'scan': scan, 'read': read, 'subscribe': subscribe}[args.command](args))


if __name__ == '__main__':
    sys.exit(main())
