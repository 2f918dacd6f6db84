"""A Bumble Device acting as the central, with its own HarnessController on
the same link as the device under test."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from bumble import hci
from bumble.device import Connection, Device
from bumble.host import Host

from .controller import SCAN_RSP, HarnessController, HarnessLink

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class AdvertiserRecord:
    """What the central received from one advertiser, bytes exactly as reported."""

    address: hci.Address
    event_types: set[int] = dataclasses.field(default_factory=set)
    advertising_data: bytes | None = None
    scan_response: bytes | None = None
    advertisements: int = 0  # number of non-scan-response reports
    scan_responses: int = 0


class Central:
    def __init__(
        self,
        link: HarnessLink,
        address: str = 'C0:00:00:00:00:C1',
        public_address: str = '00:1B:DC:F0:00:C1',
        name: str = 'central-controller',
    ) -> None:
        # The address the peripheral sees (the central connects with it).
        self.address = address
        self.link = link
        self._beacon_device: Device | None = None
        self.controller = HarnessController(name, link=link, public_address=public_address)
        host = Host(controller_source=self.controller, controller_sink=self.controller)
        self.device = Device(name='harness-central', address=hci.Address(address), host=host)
        self.records: dict[str, AdvertiserRecord] = {}
        self._changed = asyncio.Event()
        self.device.host.on('advertising_report', self._on_report)

    async def power_on(self, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self.device.power_on(), timeout)

    # -- scanning ----------------------------------------------------------
    @staticmethod
    def key(address: hci.Address | str) -> str:
        """Record key: address string without the type suffix, upper case."""
        text = address if isinstance(address, str) else address.to_string(with_type_qualifier=False)
        return text.upper()

    def _on_report(self, report: hci.HCI_LE_Advertising_Report_Event.Report) -> None:
        key = self.key(report.address)
        record = self.records.get(key)
        if record is None:
            record = self.records[key] = AdvertiserRecord(address=report.address)
        record.event_types.add(int(report.event_type))
        if report.event_type == SCAN_RSP:
            record.scan_response = bytes(report.data)
            record.scan_responses += 1
        else:
            record.advertising_data = bytes(report.data)
            record.advertisements += 1
        self._changed.set()

    async def start_scanning(self, active: bool = True, timeout: float = 5.0) -> None:
        self.records.clear()
        await asyncio.wait_for(
            self.device.start_scanning(legacy=True, active=active, filter_duplicates=False),
            timeout,
        )

    async def stop_scanning(self, timeout: float = 5.0) -> None:
        await asyncio.wait_for(self.device.stop_scanning(), timeout)

    async def wait_for_advertiser(
        self,
        address: str | None = None,
        with_scan_response: bool = True,
        timeout: float = 5.0,
        min_advertisements: int = 1,
    ) -> AdvertiserRecord:
        """Wait until an advertiser (any, or `address`) has been seen, and its
        scan response too when `with_scan_response`."""

        def found() -> AdvertiserRecord | None:
            for key, record in self.records.items():
                if address is not None and key != self.key(address):
                    continue
                if record.advertisements < min_advertisements:
                    continue
                if with_scan_response and record.scan_response is None:
                    continue
                return record
            return None

        async def wait() -> AdvertiserRecord:
            while (record := found()) is None:
                self._changed.clear()
                await self._changed.wait()
            return record

        return await asyncio.wait_for(wait(), timeout)

    async def scan_for(
        self, address: str | None = None, timeout: float = 5.0, with_scan_response: bool = True
    ) -> AdvertiserRecord:
        """Fresh active scan until the advertiser is seen; scanning stops after."""
        await self.start_scanning(active=True)
        try:
            return await self.wait_for_advertiser(address, with_scan_response, timeout)
        finally:
            await self.stop_scanning()

    BEACON_ADDRESS = 'C0:00:00:00:BE:AC'
    BEACON_INTERVAL_MS = 250.0  # slower than any advertiser under test (the daemon's default is 100 ms)

    async def sees_no_advertising(self, address: str | None = None, beacon_adverts: int = 3) -> bool:
        """Scan until a beacon of the harness's own on the same link has been heard `beacon_adverts`
        times; True when nothing (from `address`) but the beacon was seen meanwhile. The beacon
        advertises more slowly than any advertiser under test, so hearing it three times is a
        barrier: an advertiser still on air would have been heard in between, however slowly the
        machine runs the link."""
        beacon = await self._beacon()
        await beacon.start_advertising(
            advertising_interval_min=self.BEACON_INTERVAL_MS, advertising_interval_max=self.BEACON_INTERVAL_MS,
            own_address_type=hci.OwnAddressType.RANDOM,
        )
        await self.start_scanning(active=True)
        try:
            await self.wait_for_advertiser(self.BEACON_ADDRESS, with_scan_response=False, timeout=30,
                                           min_advertisements=beacon_adverts)
        finally:
            await self.stop_scanning()
            await beacon.stop_advertising()
        seen = set(self.records) - {self.key(self.BEACON_ADDRESS)}
        if address is None:
            return not seen
        return self.key(address) not in seen

    async def _beacon(self) -> Device:
        if self._beacon_device is None:
            controller = HarnessController('beacon-controller', link=self.link, public_address='00:1B:DC:F0:BE:AC')
            host = Host(controller_source=controller, controller_sink=controller)
            self._beacon_device = Device(name='harness-beacon', address=hci.Address(self.BEACON_ADDRESS), host=host)
            await asyncio.wait_for(self._beacon_device.power_on(), 5)
        return self._beacon_device

    # -- connections -------------------------------------------------------
    async def connect(self, address: hci.Address, timeout: float = 5.0) -> Connection:
        return await asyncio.wait_for(
            self.device.connect(address, timeout=timeout), timeout + 1
        )

    async def disconnect(self, connection: Connection, timeout: float = 5.0) -> None:
        await asyncio.wait_for(connection.disconnect(), timeout)

    async def wait_disconnected(self, connection: Connection, timeout: float = 5.0) -> int:
        """Wait for the peer to drop the link; returns the reason."""
        future = asyncio.get_running_loop().create_future()

        def on_disconnection(reason: int) -> None:
            if not future.done():
                future.set_result(reason)

        connection.on('disconnection', on_disconnection)
        return await asyncio.wait_for(future, timeout)
