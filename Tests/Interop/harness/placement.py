"""blesensor's advertising placement rules, written independently of the
Swift daemon so tests can compute the exact bytes they expect.

Rules (legacy 31-byte packets, AD structure = length, type, data):
1. Advertising data starts with Flags 02 01 06.
2. Service UUIDs in the order given, 16-bit ones as one Complete List (0x03),
   then 128-bit ones as one Complete List (0x07). When not all UUIDs of a size
   fit, that size uses the Incomplete List type (0x02 / 0x06) with as many as
   fit, in order; the rest go to the scan response as Incomplete lists, as
   many as fit there; anything left did not fit anywhere.
3. Complete local name (0x09) in the advertising data if it fits after the
   UUIDs; else the complete name first in the scan response; else a
   shortened name (0x08) cut at a UTF-8 character boundary to fill the scan
   response.
4. TX Power Level (0x0A), when given, after the name: in the advertising data
   if it fits, else in the scan response; left out when it fits nowhere or
   would leave a service UUID out.
5. Without scan response content the scan response is empty.
"""

from __future__ import annotations

import dataclasses
import uuid as uuid_module

MAX_PACKET = 31
FLAGS = bytes([0x02, 0x01, 0x06])

AD_INCOMPLETE_16 = 0x02
AD_COMPLETE_16 = 0x03
AD_INCOMPLETE_128 = 0x06
AD_COMPLETE_128 = 0x07
AD_SHORTENED_NAME = 0x08
AD_COMPLETE_NAME = 0x09
AD_TX_POWER_LEVEL = 0x0A


@dataclasses.dataclass
class Placement:
    advertising_data: bytes
    scan_response: bytes
    did_not_fit: list[str]


def uuid_bytes(text: str) -> bytes:
    """Little-endian bytes of a UUID given as 4 hex digits or a full UUID."""
    cleaned = text.strip()
    if cleaned.lower().startswith('0x'):
        cleaned = cleaned[2:]
    if len(cleaned) == 4:
        return int(cleaned, 16).to_bytes(2, 'little')
    return uuid_module.UUID(cleaned).bytes[::-1]


def ad_structure(ad_type: int, data: bytes) -> bytes:
    return bytes([len(data) + 1, ad_type]) + data


def _fit_count(space: int, width: int, count: int) -> int:
    if space < 2 + width:
        return 0
    return min(count, (space - 2) // width)


def truncate_utf8(name: str, limit: int) -> bytes:
    encoded = name.encode('utf-8')
    if len(encoded) <= limit:
        return encoded
    cut = limit
    # Back up over continuation bytes (10xxxxxx) so no character is split.
    while cut > 0 and (encoded[cut] & 0xC0) == 0x80:
        cut -= 1
    return encoded[:cut]


def place(name: str, service_uuids: list[str], tx_power: int | None = None) -> Placement:
    without = _place(name, service_uuids, None)
    if tx_power is None:
        return without
    powered = _place(name, service_uuids, tx_power)
    fits = AD_TX_POWER_LEVEL in _ad_types(powered.advertising_data) + _ad_types(powered.scan_response)
    return powered if fits and len(powered.did_not_fit) == len(without.did_not_fit) else without


def _ad_types(packet: bytes) -> list[int]:
    types, index = [], 0
    while index + 1 < len(packet):
        types.append(packet[index + 1])
        index += packet[index] + 1
    return types


def _place(name: str, service_uuids: list[str], tx_power: int | None) -> Placement:
    adv = bytearray(FLAGS)
    scan = bytearray()
    did_not_fit: list[str] = []

    groups = []  # (complete type, incomplete type, [(text, bytes)])
    sixteen = [(u, uuid_bytes(u)) for u in service_uuids if len(uuid_bytes(u)) == 2]
    wide = [(u, uuid_bytes(u)) for u in service_uuids if len(uuid_bytes(u)) == 16]
    groups.append((AD_COMPLETE_16, AD_INCOMPLETE_16, 2, sixteen))
    groups.append((AD_COMPLETE_128, AD_INCOMPLETE_128, 16, wide))

    overflow = []  # (incomplete type, width, remaining uuids)
    for complete_type, incomplete_type, width, items in groups:
        if not items:
            continue
        space = MAX_PACKET - len(adv)
        count = _fit_count(space, width, len(items))
        if count == len(items):
            adv += ad_structure(complete_type, b''.join(b for _, b in items))
            continue
        if count > 0:
            adv += ad_structure(incomplete_type, b''.join(b for _, b in items[:count]))
        overflow.append((incomplete_type, width, items[count:]))

    encoded_name = name.encode('utf-8')
    if name:
        complete = ad_structure(AD_COMPLETE_NAME, encoded_name)
        if len(adv) + len(complete) <= MAX_PACKET:
            adv += complete
        elif len(complete) <= MAX_PACKET:
            scan += complete
        else:
            scan += ad_structure(AD_SHORTENED_NAME, truncate_utf8(name, MAX_PACKET - 2))

    if tx_power is not None:
        power = ad_structure(AD_TX_POWER_LEVEL, tx_power.to_bytes(1, 'little', signed=True))
        if len(adv) + len(power) <= MAX_PACKET:
            adv += power
        elif len(scan) + len(power) <= MAX_PACKET:
            scan += power

    for incomplete_type, width, items in overflow:
        space = MAX_PACKET - len(scan)
        count = _fit_count(space, width, len(items))
        if count > 0:
            scan += ad_structure(incomplete_type, b''.join(b for _, b in items[:count]))
        did_not_fit.extend(text for text, _ in items[count:])

    return Placement(bytes(adv), bytes(scan), did_not_fit)
