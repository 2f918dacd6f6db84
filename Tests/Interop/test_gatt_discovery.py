"""GATT discovery of the heart-rate-peripheral example by a Bumble central:
services, characteristics with their properties, descriptors, handle layout,
the built-in GATT service and its Database Hash."""

from __future__ import annotations

import struct

from bumble import crypto
from bumble.core import UUID, AdvertisingData
from bumble.gatt import Characteristic

from harness.gatt import (
    BODY_SENSOR_LOCATION, CONTROL_POINT, COUNTER, ECHO, EXAMPLE_SERVICE, HEART_RATE_SERVICE, HRM,
    LONG, connect, start_example,
)

P = Characteristic.Properties
GAP_SERVICE = UUID.from_16_bits(0x1800)
GATT_SERVICE = UUID.from_16_bits(0x1801)
SERVICE_CHANGED = UUID.from_16_bits(0x2A05)
DATABASE_HASH = UUID.from_16_bits(0x2B2A)
CCCD = UUID.from_16_bits(0x2902)
USER_DESCRIPTION = UUID.from_16_bits(0x2901)

EXPECTED_PROPERTIES = {
    HRM: P.NOTIFY,
    BODY_SENSOR_LOCATION: P.READ,
    CONTROL_POINT: P.WRITE,
    ECHO: P.READ | P.WRITE | P.WRITE_WITHOUT_RESPONSE,
    LONG: P.READ,
    COUNTER: P.READ | P.INDICATE,
}


async def test_services_characteristics_descriptors_and_handles(harness, central, spawn_example):
    example = await start_example(harness, spawn_example, name='hr-discovery')
    session = await connect(central, example)
    await session.discover()
    services = session.peer.services

    assert [s.uuid for s in services] == [GAP_SERVICE, GATT_SERVICE, HEART_RATE_SERVICE, EXAMPLE_SERVICE]
    by_uuid = {s.uuid: s for s in services}
    assert [c.uuid for c in by_uuid[HEART_RATE_SERVICE].characteristics] == [HRM, BODY_SENSOR_LOCATION, CONTROL_POINT]
    assert [c.uuid for c in by_uuid[EXAMPLE_SERVICE].characteristics] == [ECHO, LONG, COUNTER]
    for uuid, properties in EXPECTED_PROPERTIES.items():
        characteristic = session.characteristic(uuid)
        assert characteristic.properties == properties, f'{uuid}: {characteristic.properties!r}'

    def descriptor_types(uuid: UUID) -> list[UUID]:
        return [d.type for d in session.characteristic(uuid).descriptors]

    assert descriptor_types(HRM) == [CCCD]
    assert descriptor_types(COUNTER) == [CCCD]
    assert descriptor_types(ECHO) == [USER_DESCRIPTION]
    assert descriptor_types(BODY_SENSOR_LOCATION) == []
    assert descriptor_types(CONTROL_POINT) == []
    assert descriptor_types(LONG) == []
    description = session.characteristic(ECHO).get_descriptor(USER_DESCRIPTION)
    assert await session.read(description) == b'Echo'
    # A CCCD starts at 0 for a new connection.
    assert await session.read(session.characteristic(HRM).get_descriptor(CCCD)) == b'\x00\x00'

    # GATT service: Service Changed (indicate, with its CCCD) and the Database Hash.
    gatt_characteristics = {c.uuid: c for c in by_uuid[GATT_SERVICE].characteristics}
    assert SERVICE_CHANGED in gatt_characteristics and DATABASE_HASH in gatt_characteristics
    assert gatt_characteristics[SERVICE_CHANGED].properties == P.INDICATE
    assert gatt_characteristics[SERVICE_CHANGED].get_descriptor(CCCD) is not None
    assert gatt_characteristics[DATABASE_HASH].properties & P.READ
    assert len(await session.read(gatt_characteristics[DATABASE_HASH])) == 16

    # Handle layout: services in increasing, non-overlapping ranges; within a
    # service, declaration < value < descriptors < next declaration.
    previous_end = 0
    for service in services:
        assert previous_end < service.handle <= service.end_group_handle, (
            f'service {service.uuid} range 0x{service.handle:04X}-0x{service.end_group_handle:04X} '
            f'overlaps or follows 0x{previous_end:04X}'
        )
        previous_end = service.end_group_handle
        last = service.handle
        for characteristic in service.characteristics:
            handles = [characteristic.handle] + [d.handle for d in characteristic.descriptors]
            # The value follows its declaration (handle - 1, which must be inside the service).
            assert last < characteristic.handle - 1, f'{characteristic.uuid}: handles not increasing'
            assert handles == sorted(set(handles)), f'{characteristic.uuid}: {handles}'
            assert handles[-1] <= characteristic.end_group_handle <= service.end_group_handle
            last = handles[-1]

    # Advertising carries the name and the Heart Rate service UUID.
    payload = (session.record.advertising_data or b'') + (session.record.scan_response or b'')
    data = AdvertisingData.from_bytes(payload)
    names = [data.get(AdvertisingData.COMPLETE_LOCAL_NAME), data.get(AdvertisingData.SHORTENED_LOCAL_NAME)]
    assert any(name and 'hr-discovery'.startswith(name) for name in names), payload.hex()
    uuids = (data.get(AdvertisingData.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or []) + (
        data.get(AdvertisingData.INCOMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or []
    )
    assert HEART_RATE_SERVICE in uuids, payload.hex()


async def test_database_hash_matches_the_discovered_database(harness, central, spawn_example):
    """Core Vol 3, Part G, 7.3: AES-CMAC with a zero key over, for each
    attribute in handle order, handle + type + value of service, include,
    characteristic declarations and Extended Properties, and handle + type of
    User Description, CCCD, SCCD, Presentation and Aggregate Format
    descriptors; the 128-bit result is sent least significant octet first."""
    example = await start_example(harness, spawn_example, name='hr-hash')
    session = await connect(central, example)
    attributes = await session.client.discover_attributes()
    handles = [a.handle for a in attributes]
    assert handles == sorted(set(handles)) and handles[0] == 1, handles

    with_value = {0x2800, 0x2801, 0x2802, 0x2803, 0x2900}
    type_only = {0x2901, 0x2902, 0x2903, 0x2904, 0x2905}
    message = b''
    for attribute in attributes:
        raw_type = attribute.type.to_bytes()
        if len(raw_type) != 2:
            continue
        kind = struct.unpack('<H', raw_type)[0]
        if kind in with_value:
            message += struct.pack('<H', attribute.handle) + raw_type + await session.read(attribute.handle)
        elif kind in type_only:
            message += struct.pack('<H', attribute.handle) + raw_type
    expected = crypto.aes_cmac(message, bytes(16))[::-1]
    hash_characteristic = [
        a for a in attributes if a.type == DATABASE_HASH
    ]
    assert len(hash_characteristic) == 1
    assert await session.read(hash_characteristic[0].handle) == expected
