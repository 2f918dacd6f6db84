"""Controller profiles: the harness controller answering as a real chip would.

Tests/ControllerProfiles/profiles.json is shared with the Swift tests
(Tests/HCIHostTests/ControllerProfile.swift); its "about" field documents every key. `apply`
sets a profile on a HarnessController before the host starts: version, features, states,
buffers, the commands it lists, its strict refusals and its Number Of Completed Packets pacing.
"""

from __future__ import annotations

import functools
import json
import struct
from pathlib import Path
from typing import Any

from bumble import hci
from bumble.controller import Controller

from .controller import HarnessController

PROFILES_FILE = Path(__file__).resolve().parents[2] / 'ControllerProfiles' / 'profiles.json'

# Bit 37 of the LMP features: "BR/EDR Not Supported"; clear means dual-mode (Vol 2 Part C 3.3).
BR_EDR_NOT_SUPPORTED = 1 << 37
# LE Supported States bits for connectable and scannable advertising beside a peripheral link
# (Vol 4 Part E 7.8.27): the daemon advertises beside a link only with both.
STATES_ADVERTISING_WHILE_PERIPHERAL = (1 << 38) | (1 << 21)
STRICT_KEYS = {'le_event_mask_limit', 'refuse', 'le_host_support_required',
               'advertising_while_connected', 'drop_reply_once'}


def number(value: str | int) -> int:
    """Numbers are hex strings where the spec prints them in hex, else JSON integers."""
    return int(value, 16) if isinstance(value, str) else int(value)


@functools.cache
def profiles() -> dict[str, dict[str, Any]]:
    """Every profile in the file, by name, in the file's order."""
    document = json.loads(PROFILES_FILE.read_text())
    return {profile['name']: profile for profile in document['profiles']}


def names(**strict: Any) -> list[str]:
    """Profile names, optionally only those whose `strict` section has the given values."""
    return [name for name, profile in profiles().items()
            if all(profile['strict'].get(key) == value for key, value in strict.items())]


def is_dual_mode(profile: dict[str, Any]) -> bool:
    return not number(profile['lmp_features']) & BR_EDR_NOT_SUPPORTED


def advertises_while_connected(profile: dict[str, Any]) -> bool:
    """What the profile's LE Supported States claim (the controller may still refuse)."""
    states = number(profile['le_states'])
    return states & STATES_ADVERTISING_WHILE_PERIPHERAL == STATES_ADVERTISING_WHILE_PERIPHERAL


def acl_buffers(profile: dict[str, Any]) -> tuple[int, int]:
    """(size, count) the host must use: the LE buffers, or the shared ones when LE has none."""
    size, count = profile['le_acl_buffers']
    return tuple(profile['acl_buffers']) if (size, count) == (0, 0) else (size, count)


def apply(controller: HarnessController, name: str) -> dict[str, Any]:
    """Makes `controller` answer as profile `name`; returns the profile. Call it before the host
    connects: the host reads all of this once, at bring-up."""
    profile = profiles()[name]
    controller.hci_version = profile['hci_version']
    controller.hci_revision = number(profile['hci_revision'])
    controller.lmp_version = profile['lmp_version']
    controller.manufacturer_company_identifier = profile['manufacturer']
    controller.lmp_subversion = number(profile['lmp_subversion'])
    controller.lmp_features = hci.LmpFeatureMask(number(profile['lmp_features']))
    controller.le_features = hci.LeFeatureMask(number(profile['le_features']))
    controller.le_states = number(profile['le_states']).to_bytes(8, 'little')
    controller.le_acl_data_packet_length, controller.total_num_le_acl_data_packets = profile['le_acl_buffers']
    controller.acl_data_packet_length, controller.total_num_acl_data_packets = profile['acl_buffers']

    not_listed = {number(opcode) for opcode in profile['commands_not_listed']}
    unknown = not_listed - hci.HCI_SUPPORTED_COMMANDS_MASKS.keys()
    assert not unknown, f'{name}: no Supported Commands bit for {sorted(map(hex, unknown))}'
    controller.supported_commands = set(Controller.supported_commands) - not_listed

    strict = profile['strict']
    # A key this harness does not know would otherwise leave the controller laxer than the chip.
    assert set(strict) <= STRICT_KEYS, f'{name}: unknown strict keys {set(strict) - STRICT_KEYS}'
    if 'le_event_mask_limit' in strict:
        controller.le_event_mask_limit = number(strict['le_event_mask_limit'])
    controller.refuse = {number(opcode): number(status) for opcode, status in strict.get('refuse', {}).items()}
    controller.le_host_support_required = bool(strict.get('le_host_support_required', False))
    controller.advertising_while_connected = bool(strict.get('advertising_while_connected', True))
    if 'drop_reply_once' in strict:
        controller.drop_reply_once = {number(strict['drop_reply_once'])}

    completions = profile['completions']
    controller.completion_interval = completions['interval_ms'] / 1000
    controller.completion_batch = completions['max_per_event']
    return profile


def command_statuses(controller: HarnessController, opcode: int) -> list[int]:
    """The status of every Command Complete or Command Status the controller sent for `opcode`."""
    statuses = []
    for raw in controller.events_sent:
        if len(raw) >= 7 and raw[1] == 0x0E and struct.unpack_from('<H', raw, 4)[0] == opcode:
            statuses.append(raw[6])
        elif len(raw) >= 7 and raw[1] == 0x0F and struct.unpack_from('<H', raw, 5)[0] == opcode:
            statuses.append(raw[3])
    return statuses
