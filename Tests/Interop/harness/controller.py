"""Bumble's virtual LE controller with the gaps that matter to blesensor fixed.

The stock `bumble.controller.Controller` (0.0.236) is a good peer but differs
from hardware in ways that would hide host bugs or hang a host (see
shared/notes/bumble-controller.md). This subclass fixes:

* scan responses: an active scanner on the link receives the advertiser's
  real scan response data (SCAN_RSP, event type 0x04) after each ADV_IND
  (0x00); legacy advertising interval in 0.625 ms units; duplicate filter.
* HCI_Reset resets: advertising off and its data cleared, scanning off,
  connections dropped (peers see a supervision timeout), event masks back
  to their power-on defaults. Event masks are applied to outgoing events.
* commands the stock controller leaves unanswered get a proper answer, and
  every unknown or unparseable command gets a Command Complete with an
  error status, so a host never waits for nothing.
* ACL sent by a peripheral that advertises with its public address reaches
  the central (the link labels ACL with the connection's own address).
* controller-to-host ACL is fragmented to the link's payload size.
* host-to-controller ACL is checked against the buffer size and credits,
  and Number Of Completed Packets can be held back (`hold_completions`).
* local Disconnect reports 0x16 like hardware; unknown handles get 0x02.
* a controller profile (harness/profiles.py) can make it answer as a real
  chip: strict refusals, a lost reply, LE buffers of 0 (shared ones used),
  Number Of Completed Packets paced by a timer.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import struct
import time
from collections.abc import Callable
from typing import Any

from bumble import hci, ll
from bumble.controller import Controller, LegacyAdvertiser
from bumble.core import PhysicalTransport
from bumble.link import LocalLink

logger = logging.getLogger(__name__)

# Power-on defaults from Core Vol 4, Part E, 7.3.1 and 7.8.1.
DEFAULT_EVENT_MASK = 0x00001FFFFFFFFFFF
DEFAULT_LE_EVENT_MASK = 0x000000000000001F

# Events that no mask can suppress: Command Complete, Command Status,
# Number Of Completed Packets.
UNMASKABLE_EVENTS = {0x0E, 0x0F, 0x13}

OPCODE_LE_SET_EVENT_MASK = 0x2001
OPCODE_LE_SET_ADVERTISING_ENABLE = 0x200A
OGF_LE = 0x08

ADV_IND = 0x00
ADV_SCAN_IND = 0x02
ADV_NONCONN_IND = 0x03
SCAN_RSP = 0x04

STATUS_SUCCESS = 0x00
STATUS_UNKNOWN_COMMAND = 0x01
STATUS_UNKNOWN_CONNECTION = 0x02
STATUS_COMMAND_DISALLOWED = 0x0C
STATUS_INVALID_PARAMETERS = 0x12
STATUS_LOCAL_HOST_TERMINATED = 0x16
STATUS_CONNECTION_TIMEOUT = 0x08


@dataclasses.dataclass
class AdvScanInd(ll.AdvertisingPdu):
    """Scannable, non-connectable legacy advertisement (Bumble has no PDU for it)."""

    advertiser_address: hci.Address
    data: bytes


@dataclasses.dataclass
class CommandRecord:
    """One command the host sent, as seen by the controller."""

    time: float  # time.monotonic()
    opcode: int
    parameters: bytes


class HarnessLink(LocalLink):
    """LocalLink that labels ACL with the sending connection's own address and
    lets an active scanner ask advertisers for their scan response."""

    def send_acl_data(
        self,
        sender_controller: Controller,
        destination_address: hci.Address,
        transport: PhysicalTransport,
        data: bytes,
    ) -> None:
        if transport != PhysicalTransport.LE:
            super().send_acl_data(sender_controller, destination_address, transport, data)
            return
        # The stock link uses the sender's random address, so a peripheral
        # advertising with its public address had all its ACL dropped.
        connection = sender_controller.le_connections.get(destination_address)
        source_address = (
            connection.self_address if connection else sender_controller.random_address
        )
        destination = self.find_le_controller(destination_address)
        if destination is None or destination is sender_controller:
            return
        asyncio.get_running_loop().call_soon(
            destination.on_link_acl_data, source_address, transport, data
        )

    def scan_request(
        self, scanner: Controller, advertiser_address: hci.Address
    ) -> bytes | None:
        """SCAN_REQ/SCAN_RSP exchange: the scan response data of the advertiser
        currently advertising with `advertiser_address`, or None."""
        for controller in self.controllers:
            if controller is scanner:
                continue
            answer = getattr(controller, 'answer_scan_request', None)
            if answer is None:
                continue
            response = answer(advertiser_address)
            if response is not None:
                return response
        return None


class HarnessLegacyAdvertiser(LegacyAdvertiser):
    """Legacy advertiser with the interval in 0.625 ms units and all legacy
    undirected PDU types on air."""

    def _on_timer_fired(self) -> None:
        self.send_advertising_data()
        # 0x20 (20 ms) is the spec minimum; also protects the loop from 0.
        interval = max(self.advertising_interval_min, 0x20) * 0.000625
        self.timer_handle = asyncio.get_running_loop().call_later(
            interval, self._on_timer_fired
        )

    def send_advertising_data(self) -> None:
        if not self.enabled:
            return
        if self.advertising_type == ADV_IND:
            pdu: ll.AdvertisingPdu = ll.AdvInd(
                advertiser_address=self.address, data=self.advertising_data
            )
        elif self.advertising_type == ADV_SCAN_IND:
            pdu = AdvScanInd(advertiser_address=self.address, data=self.advertising_data)
        elif self.advertising_type == ADV_NONCONN_IND:
            pdu = ll.AdvNonConnInd(
                advertiser_address=self.address, data=self.advertising_data
            )
        else:
            # Directed advertising is not emulated.
            return
        self.controller.send_advertising_pdu(pdu)


class HarnessController(Controller):
    """See module docstring."""

    supported_max_tx_octets = 251
    supported_max_tx_time = 2120
    supported_max_rx_octets = 251
    supported_max_rx_time = 2120

    def __init__(self, name: str, link: LocalLink, public_address: str) -> None:
        super().__init__(name, link=link, public_address=public_address)
        # Legacy reports only: blesensor uses legacy advertising, and the
        # central then scans with legacy commands, whose reports we control.
        self.le_features = self.le_features & ~(
            hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
            | hci.LeFeatureMask.LE_PERIODIC_ADVERTISING
        )
        self.event_mask = DEFAULT_EVENT_MASK
        self.le_event_mask = DEFAULT_LE_EVENT_MASK
        self.le_legacy_advertiser = HarnessLegacyAdvertiser(self)
        self.commands: list[CommandRecord] = []
        self.events_sent: list[bytes] = []
        self.violations: list[str] = []
        self._command_waiters: list[tuple[Callable[[CommandRecord], bool], asyncio.Future]] = []
        self._reported_duplicates: set[tuple[bytes, int, int]] = set()
        # Flow control bookkeeping for host-to-controller ACL, by handle.
        self.hold_completions = False
        self._held_completions: dict[int, int] = {}
        self._outstanding: dict[int, int] = {}
        # Link-layer payload size per connection handle (controller-to-host).
        self._rx_octets: dict[int, int] = {}
        self.peak_outstanding = 0  # most host-to-controller ACL packets ever uncompleted
        # Strictness of real chips (harness/profiles.py sets these from a profile).
        self.le_event_mask_limit: int | None = None  # LE event mask bits beyond it: 0x12
        self.refuse: dict[int, int] = {}  # opcode -> status, though listed
        self.le_host_support_required = False  # LE commands: 0x0C until Write LE Host Support(1)
        self.advertising_while_connected = True  # False: enabling beside a peripheral link: 0x0C
        self.drop_reply_once: set[int] = set()  # opcodes whose next command goes unanswered
        self.dropped_replies: list[int] = []
        self._le_host_supported = False
        # Bumble answers 0 dBm; a negative figure checks that the host keeps the sign.
        self.advertising_tx_power = -4
        # Number Of Completed Packets paced: at most `completion_batch` (0: all) per event,
        # one event every `completion_interval` seconds (0: each packet at once).
        self.completion_interval = 0.0
        self.completion_batch = 0
        self._completion_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------
    # Observation hooks for tests
    # ------------------------------------------------------------------
    @property
    def advertising_enabled(self) -> bool:
        return self.le_legacy_advertiser.enabled

    @property
    def acl_credits(self) -> int:
        """The ACL buffers the host may fill: the LE ones, or the shared ones when LE reports
        none (LE Read Buffer Size answering 0, Vol 4 Part E 7.8.2)."""
        return self.total_num_le_acl_data_packets or self.total_num_acl_data_packets

    @property
    def acl_buffer_size(self) -> int:
        return self.le_acl_data_packet_length or self.acl_data_packet_length

    def wait_for_command(
        self,
        predicate: Callable[[CommandRecord], bool],
        since: int = 0,
    ) -> asyncio.Future:
        """Future resolved with the first command at index >= `since` that
        matches. Callers wrap it in asyncio.wait_for."""
        future = asyncio.get_running_loop().create_future()
        for record in self.commands[since:]:
            if predicate(record):
                future.set_result(record)
                return future
        self._command_waiters.append((predicate, future))
        return future

    def wait_for_advertising_enable(self, enable: bool = True, since: int = 0) -> asyncio.Future:
        def matches(record: CommandRecord) -> bool:
            return (
                record.opcode == OPCODE_LE_SET_ADVERTISING_ENABLE
                and len(record.parameters) >= 1
                and bool(record.parameters[0]) == enable
            )

        return self.wait_for_command(matches, since)

    def _record_command(self, opcode: int, parameters: bytes) -> None:
        record = CommandRecord(time.monotonic(), opcode, parameters)
        self.commands.append(record)
        still_waiting = []
        for predicate, future in self._command_waiters:
            if future.done():
                continue
            if predicate(record):
                future.set_result(record)
            else:
                still_waiting.append((predicate, future))
        self._command_waiters = still_waiting

    def release_completions(self, handle: int | None = None, count: int | None = None) -> int:
        """Send Number Of Completed Packets held while `hold_completions` was
        set. Returns the number of credits released."""
        released = 0
        for h in list(self._held_completions):
            if handle is not None and h != handle:
                continue
            held = self._held_completions[h]
            n = held if count is None else min(held, count - released)
            if n <= 0:
                continue
            self._held_completions[h] = held - n
            released += n
            self._send_completed(h, n)
        return released

    # ------------------------------------------------------------------
    # Reset
    # ------------------------------------------------------------------
    def reset_state(self) -> None:
        """What HCI_Reset does on hardware; also used when the host drops."""
        self.le_legacy_advertiser.stop()
        self.le_legacy_advertiser = HarnessLegacyAdvertiser(self)
        for advertising_set in self.advertising_sets.values():
            advertising_set.stop()
        self.advertising_sets.clear()
        self.le_scan_enable = False
        self.le_scan_type = 0
        self.filter_duplicates = False
        self._reported_duplicates.clear()
        self.pending_le_connection = None
        for connection in list(self.le_connections.values()):
            # Peers see the link vanish: a supervision timeout on their side.
            try:
                connection.send_ll_control_pdu(ll.TerminateInd(STATUS_CONNECTION_TIMEOUT))
            except Exception:  # peer already gone from the link
                logger.debug('peer of %s already gone', connection.peer_address)
        self.le_connections.clear()
        self.event_mask = DEFAULT_EVENT_MASK
        self.event_mask_page_2 = 0
        self.le_event_mask = DEFAULT_LE_EVENT_MASK
        self.random_address = hci.Address('00:00:00:00:00:00')
        self.suggested_max_tx_octets = 27
        self.suggested_max_tx_time = 0x0148
        self._held_completions.clear()
        self._outstanding.clear()
        self._rx_octets.clear()
        self._le_host_supported = False
        if self._completion_timer is not None:
            self._completion_timer.cancel()
            self._completion_timer = None

    def on_hci_reset_command(self, _command: hci.HCI_Command) -> hci.HCI_StatusReturnParameters:
        self.reset_state()
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    # ------------------------------------------------------------------
    # Host -> controller packets
    # ------------------------------------------------------------------
    def on_packet(self, packet: bytes) -> None:
        if not packet:
            return
        if packet[0] == hci.HCI_COMMAND_PACKET:
            self._on_command_bytes(packet)
        elif packet[0] == hci.HCI_ACL_DATA_PACKET:
            try:
                acl = hci.HCI_AclDataPacket.from_bytes(packet)
            except Exception as error:
                self.violations.append(f'unparseable ACL packet {packet.hex()}: {error}')
                return
            self.on_hci_acl_data_packet(acl)
        else:
            self.violations.append(f'unexpected packet type 0x{packet[0]:02X} from host')

    def _on_command_bytes(self, packet: bytes) -> None:
        if len(packet) < 4:
            self.violations.append(f'truncated command {packet.hex()}')
            return
        opcode, length = struct.unpack_from('<HB', packet, 1)
        parameters = bytes(packet[4:])
        self._record_command(opcode, parameters)
        if opcode in self.drop_reply_once:
            # Lost on the way, as replies at boot on some Broadcom chips: no answer at all.
            self.drop_reply_once.discard(opcode)
            self.dropped_replies.append(opcode)
            return
        status = self._strict_refusal(opcode, parameters)
        if status is not None:
            command_class = hci.HCI_Command.command_classes.get(opcode)
            if command_class is not None and issubclass(command_class, hci.HCI_AsyncCommand):
                self._command_status(status, opcode)
            else:
                self._command_complete(opcode, bytes([status]))
            return
        handler_name = f'on_{hci.HCI_Command.command_name(opcode).lower()}'
        if getattr(self, handler_name, None) is None:
            # Unknown to us: answer at once so the host never waits.
            self._command_complete(opcode, bytes([STATUS_UNKNOWN_COMMAND]))
            return
        if len(parameters) != length:
            self._command_complete(opcode, bytes([STATUS_INVALID_PARAMETERS]))
            return
        try:
            command = hci.HCI_Command.from_bytes(packet)
        except Exception as error:
            logger.info('unparseable command 0x%04X: %s', opcode, error)
            self._command_complete(opcode, bytes([STATUS_INVALID_PARAMETERS]))
            return
        handler = getattr(self, f'on_{command.name.lower()}', None)
        if handler is None:
            # Unknown to us: answer at once so the host never waits.
            self._command_complete(opcode, bytes([STATUS_UNKNOWN_COMMAND]))
            return
        try:
            result = handler(command)
        except Exception as error:
            logger.exception('handler for 0x%04X failed', opcode)
            self.violations.append(f'command 0x{opcode:04X} made the controller fail: {error}')
            self._command_complete(opcode, bytes([STATUS_INVALID_PARAMETERS]))
            return
        if isinstance(command, hci.HCI_SyncCommand):
            if result is None:
                self._command_complete(opcode, bytes([STATUS_UNKNOWN_COMMAND]))
            else:
                self._command_complete(opcode, bytes(result))
        elif result is not None:
            # An async command the stock controller only "completes" with a
            # status: hardware sends that status in a Command Status.
            status = getattr(result, 'status', STATUS_UNKNOWN_COMMAND)
            self._command_status(int(status), opcode)

    def _strict_refusal(self, opcode: int, parameters: bytes) -> int | None:
        """The status a strict profile refuses this command with, or None."""
        if opcode in self.refuse:
            return self.refuse[opcode]
        if self.le_host_support_required and opcode >> 10 == OGF_LE and not self._le_host_supported:
            return STATUS_COMMAND_DISALLOWED
        if opcode == OPCODE_LE_SET_EVENT_MASK and self.le_event_mask_limit is not None:
            if int.from_bytes(parameters[:8], 'little') & ~self.le_event_mask_limit:
                return STATUS_INVALID_PARAMETERS
        if (opcode == OPCODE_LE_SET_ADVERTISING_ENABLE and not self.advertising_while_connected
                and parameters[:1] == b'\x01'
                and any(c.role == hci.Role.PERIPHERAL for c in self.le_connections.values())):
            return STATUS_COMMAND_DISALLOWED
        return None

    def on_hci_le_read_advertising_physical_channel_tx_power_command(self, _command: Any) -> Any:
        return hci.HCI_LE_Read_Advertising_Physical_Channel_Tx_Power_ReturnParameters(
            status=hci.HCI_ErrorCode.SUCCESS, tx_power_level=self.advertising_tx_power
        )

    def on_hci_write_le_host_support_command(self, command: Any) -> Any:
        self._le_host_supported = bool(command.le_supported_host)
        return super().on_hci_write_le_host_support_command(command)

    def on_hci_acl_data_packet(self, packet: hci.HCI_AclDataPacket) -> None:
        handle = packet.connection_handle
        connection = self.find_connection_by_handle(handle)
        if connection is None:
            self.violations.append(f'ACL for unknown handle 0x{handle:04X}')
            return
        if len(packet.data) > self.acl_buffer_size:
            self.violations.append(
                f'ACL packet of {len(packet.data)} bytes exceeds buffer size '
                f'{self.acl_buffer_size}'
            )
        self._outstanding[handle] = self._outstanding.get(handle, 0) + 1
        outstanding = sum(self._outstanding.values())
        self.peak_outstanding = max(self.peak_outstanding, outstanding)
        if outstanding > self.acl_credits:
            self.violations.append(f'host overran the {self.acl_credits} ACL credits')
        connection.assembler.feed_packet(packet)
        if self.hold_completions or self.completion_interval > 0:
            self._held_completions[handle] = self._held_completions.get(handle, 0) + 1
            if not self.hold_completions and self._completion_timer is None:
                self._completion_timer = asyncio.get_running_loop().call_later(
                    self.completion_interval, self._release_paced)
        else:
            self._send_completed(handle, 1)

    def _release_paced(self) -> None:
        """One paced Number Of Completed Packets: up to `completion_batch` packets, shared
        round-robin among the links, so one busy link cannot starve another."""
        self._completion_timer = None
        if self.hold_completions:
            return  # a test holds them; release_completions() hands them back
        remaining = {h: n for h, n in self._held_completions.items() if n > 0}
        budget = self.completion_batch or sum(remaining.values())
        released: dict[int, int] = {}
        while budget > 0 and remaining:
            for h in list(remaining):
                if budget == 0:
                    break
                released[h] = released.get(h, 0) + 1
                budget -= 1
                remaining[h] -= 1
                if remaining[h] == 0:
                    del remaining[h]
        if released:
            for h, n in released.items():
                self._held_completions[h] -= n
                self._outstanding[h] = max(0, self._outstanding.get(h, 0) - n)
            self.send_hci_packet(hci.HCI_Number_Of_Completed_Packets_Event(
                connection_handles=list(released), num_completed_packets=list(released.values())))
        if remaining:
            self._completion_timer = asyncio.get_running_loop().call_later(
                self.completion_interval, self._release_paced)

    def _send_completed(self, handle: int, count: int) -> None:
        self._outstanding[handle] = max(0, self._outstanding.get(handle, 0) - count)
        self.send_hci_packet(
            hci.HCI_Number_Of_Completed_Packets_Event(
                connection_handles=[handle], num_completed_packets=[count]
            )
        )

    # ------------------------------------------------------------------
    # Controller -> host packets
    # ------------------------------------------------------------------
    def send_hci_packet(self, packet: Any) -> None:
        raw = packet if isinstance(packet, (bytes, bytearray)) else bytes(packet)
        if not self._event_allowed(raw):
            return
        self.events_sent.append(bytes(raw))
        if self.host:
            asyncio.get_running_loop().call_soon(self.host.on_packet, bytes(raw))

    def _event_allowed(self, raw: bytes) -> bool:
        if len(raw) < 2 or raw[0] != hci.HCI_EVENT_PACKET:
            return True
        code = raw[1]
        if code in UNMASKABLE_EVENTS:
            return True
        if code == hci.HCI_LE_META_EVENT:
            if not (self.event_mask >> 61) & 1:
                return False
            if len(raw) < 4:
                return True
            return bool((self.le_event_mask >> (raw[3] - 1)) & 1)
        if 1 <= code <= 64:
            return bool((self.event_mask >> (code - 1)) & 1)
        return True

    def _send_event(self, code: int, parameters: bytes) -> None:
        self.send_hci_packet(bytes([hci.HCI_EVENT_PACKET, code, len(parameters)]) + parameters)

    def _send_le_meta(self, subevent: int, parameters: bytes) -> None:
        self._send_event(hci.HCI_LE_META_EVENT, bytes([subevent]) + parameters)

    def _command_complete(self, opcode: int, return_parameters: bytes) -> None:
        self._send_event(0x0E, struct.pack('<BH', 1, opcode) + return_parameters)

    def _command_status(self, status: int, opcode: int) -> None:
        self._send_event(0x0F, struct.pack('<BBH', status, 1, opcode))

    def _send_hci_command_status(self, status: int, op_code: int) -> None:
        self._command_status(status, op_code)

    def on_link_acl_data(
        self, sender_address: hci.Address, transport: PhysicalTransport, data: bytes
    ) -> None:
        if transport != PhysicalTransport.LE:
            super().on_link_acl_data(sender_address, transport, data)
            return
        connection = self.le_connections.get(sender_address)
        if connection is None:
            logger.warning('no connection for %s', sender_address)
            return
        # Hardware delivers one LL payload per ACL packet.
        size = self._rx_octets.get(connection.handle, 27)
        for offset in range(0, max(len(data), 1), size):
            fragment = data[offset : offset + size]
            pb_flag = 0x02 if offset == 0 else 0x01
            self.send_hci_packet(
                hci.HCI_AclDataPacket(connection.handle, pb_flag, 0, len(fragment), fragment)
            )

    # ------------------------------------------------------------------
    # Advertising and scanning
    # ------------------------------------------------------------------
    def answer_scan_request(self, advertiser_address: hci.Address) -> bytes | None:
        advertiser = self.le_legacy_advertiser
        if (
            advertiser.enabled
            and advertiser.advertising_type in (ADV_IND, ADV_SCAN_IND)
            and advertiser.address == advertiser_address
        ):
            return bytes(advertiser.scan_response_data)
        return None

    def on_hci_le_set_scan_enable_command(self, command: Any) -> hci.HCI_StatusReturnParameters:
        result = super().on_hci_le_set_scan_enable_command(command)
        self._reported_duplicates.clear()
        return result

    def on_ll_advertising_pdu(self, packet: ll.AdvertisingPdu) -> None:
        if isinstance(packet, (ll.AdvInd, AdvScanInd, ll.AdvNonConnInd)):
            self._on_legacy_advertising_pdu(packet)
        else:
            super().on_ll_advertising_pdu(packet)

    def _on_legacy_advertising_pdu(self, pdu: Any) -> None:
        if isinstance(pdu, ll.AdvInd):
            event_type = ADV_IND
        elif isinstance(pdu, AdvScanInd):
            event_type = ADV_SCAN_IND
        else:
            event_type = ADV_NONCONN_IND
        address = pdu.advertiser_address
        if self.le_scan_enable:
            self._report_advertisement(event_type, address, pdu.data)
            if self.le_scan_type == 1 and event_type in (ADV_IND, ADV_SCAN_IND):
                response = None
                if isinstance(self.link, HarnessLink):
                    response = self.link.scan_request(self, address)
                if response is not None:
                    self._report_advertisement(SCAN_RSP, address, response)
        if (
            event_type == ADV_IND
            and (pending := self.pending_le_connection) is not None
            and pending.peer_address == address
        ):
            self.create_le_connection(address)

    def _report_advertisement(self, event_type: int, address: hci.Address, data: bytes) -> None:
        if self.filter_duplicates:
            key = (bytes(address.address_bytes), int(address.address_type), event_type)
            if key in self._reported_duplicates:
                return
            self._reported_duplicates.add(key)
        report = hci.HCI_LE_Advertising_Report_Event.Report(
            event_type=event_type,
            address_type=address.address_type,
            address=address,
            data=data,
            rssi=-50,
        )
        self.send_hci_packet(hci.HCI_LE_Advertising_Report_Event([report]))

    def on_le_connect_ind(self, packet: ll.ConnectInd) -> None:
        advertiser = self.le_legacy_advertiser
        if advertiser.address == packet.advertiser_address and advertiser.advertising_type in (
            ADV_SCAN_IND,
            ADV_NONCONN_IND,
        ):
            return  # not connectable
        super().on_le_connect_ind(packet)

    # ------------------------------------------------------------------
    # Commands the stock controller does not answer (or answers wrongly)
    # ------------------------------------------------------------------
    def on_hci_read_remote_version_information_command(self, command: Any) -> None:
        handle = command.connection_handle
        connection = self.find_le_connection_by_handle(handle)
        if connection is None:
            self._command_status(STATUS_UNKNOWN_CONNECTION, command.op_code)
            return None
        self._command_status(STATUS_SUCCESS, command.op_code)
        peer = self.link.find_le_controller(connection.peer_address) if self.link else None
        version = getattr(peer, 'lmp_version', hci.HCI_VERSION_BLUETOOTH_CORE_5_0)
        manufacturer = getattr(peer, 'manufacturer_company_identifier', 0xFFFF)
        subversion = getattr(peer, 'lmp_subversion', 0)
        self._send_event(0x0C, struct.pack('<BHBHH', STATUS_SUCCESS, handle, version, manufacturer, subversion))
        return None

    def on_hci_le_set_data_length_command(self, command: Any) -> bytes | Any:
        handle = command.connection_handle
        tx_octets, tx_time = command.tx_octets, command.tx_time
        if self.find_le_connection_by_handle(handle) is None:
            return hci.HCI_StatusAndConnectionHandleReturnParameters(
                status=STATUS_UNKNOWN_CONNECTION, connection_handle=handle
            )
        if not (0x1B <= tx_octets <= 0xFB and 0x148 <= tx_time <= 0x4290):
            return hci.HCI_StatusAndConnectionHandleReturnParameters(
                status=STATUS_INVALID_PARAMETERS, connection_handle=handle
            )
        max_tx_octets = min(tx_octets, self.supported_max_tx_octets)
        max_tx_time = min(tx_time, self.supported_max_tx_time)
        self._rx_octets[handle] = self.supported_max_rx_octets
        # The change event follows the Command Complete.
        asyncio.get_running_loop().call_soon(
            self._send_le_meta,
            0x07,
            struct.pack(
                '<HHHHH',
                handle,
                max_tx_octets,
                max_tx_time,
                self.supported_max_rx_octets,
                self.supported_max_rx_time,
            ),
        )
        return hci.HCI_StatusAndConnectionHandleReturnParameters(
            status=STATUS_SUCCESS, connection_handle=handle
        )

    def on_hci_le_write_suggested_default_data_length_command(self, command: Any) -> Any:
        octets, tx_time = struct.unpack('<HH', command.parameters[:4])
        if not (0x1B <= octets <= 0xFB and 0x148 <= tx_time <= 0x4290):
            return hci.HCI_StatusReturnParameters(STATUS_INVALID_PARAMETERS)
        self.suggested_max_tx_octets, self.suggested_max_tx_time = octets, tx_time
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS)

    def on_hci_le_set_phy_command(self, command: Any) -> None:
        handle = command.connection_handle
        if self.find_le_connection_by_handle(handle) is None:
            self._command_status(STATUS_UNKNOWN_CONNECTION, command.op_code)
            return None
        self._command_status(STATUS_SUCCESS, command.op_code)

        def choose(no_preference: bool, phys: int) -> int:
            # 2M when the host prefers it, else 1M (coded is not emulated).
            if not no_preference and phys & 0x02:
                return 0x02
            return 0x01

        tx_phy = choose(bool(command.all_phys & 0x01), command.tx_phys)
        rx_phy = choose(bool(command.all_phys & 0x02), command.rx_phys)
        self._send_le_meta(0x0C, struct.pack('<BHBB', STATUS_SUCCESS, handle, tx_phy, rx_phy))
        return None

    def on_hci_disconnect_command(self, command: Any) -> None:
        handle = command.connection_handle
        connection = self.find_le_connection_by_handle(handle)
        if connection is None:
            if self.find_connection_by_handle(handle) is None:
                self._command_status(STATUS_UNKNOWN_CONNECTION, command.op_code)
                return None
            return super().on_hci_disconnect_command(command)
        self._command_status(STATUS_SUCCESS, command.op_code)
        connection.send_ll_control_pdu(ll.TerminateInd(command.reason))
        # Hardware reports "terminated by local host" to the initiator.
        self.on_le_disconnected(connection, STATUS_LOCAL_HOST_TERMINATED)
        return None

    def on_le_disconnected(self, connection: Any, reason: int) -> None:
        self._outstanding.pop(connection.handle, None)
        self._held_completions.pop(connection.handle, None)
        self._rx_octets.pop(connection.handle, None)
        super().on_le_disconnected(connection, reason)
