"""Soak: blesensord on the simulated board (configs/security.yaml, 4 centrals allowed) under an
interval-paced controller profile, with 4 Bumble centrals that connect, pair (first time) or
re-encrypt with the stored bond, subscribe, receive, disconnect and come back, for --minutes, while
faults are injected every --fault-every seconds:

- one dropped command reply: the harness controller's drop-one-reply switch armed for LE Set
  Advertising Enable (0x200A, sent after each connection and disconnection). The daemon must log
  "taking its command slot back", never reset the controller for it, and advertise again;
- a sensor that fails and recovers: a second sensor `cellar` (driver iio, publishing 2A6D
  pressure) lives, on the simulated board, in a sysfs tree the daemon creates under its TMPDIR
  (SimulatedKernelSensorTree). Its value file is overwritten with a garbled value, as a dht11 whose
  read went wrong: the daemon must log the failure, reopen the device (a fresh tree) and log
  "reading again". (`simulation: {fail-after: ...}` fails once and for good, it never recovers.)
- a central that stops acknowledging: the controller under the daemon (a HarnessController
  subclass here) holds the link's ACL packets and their Number Of Completed Packets, as a chip does
  when the peer stops acknowledging at the link layer, so the credits that link holds never come
  back. First a short stall (below the daemon's 10 s ACL transmit timeout), released: its queue must
  drain and notifications resume on the same link; then a stall that lasts: the daemon must drop
  that link ("no ACL packet completed ... disconnecting") while the other centrals keep being served
  (its per-link credit limit and round-robin), and the central comes back.

Not a test: prints figures (a progress line a minute) and exits 1 when an invariant breaks:
the daemon restarted or died, the harness saw host misbehaviour (`violations`, credits overrun),
a controller reset, a dropped reply not taken back, resident memory grown by more than
--rss-growth-mib after the warm-up (the first minute), a fault not handled, a central dropped or
left unserved, a cycle that failed.

    BLESENSORD=path Tests/Interop/.venv/bin/python Tests/Interop/bench_soak.py [--minutes 30]
        [--fault-every 120] [--profile cyw43455] [--poll-interval 250ms] [--connected 5]

`--minutes 0.5` is the quick version (one fault round; about a minute in all).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import random
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bumble import hci  # noqa: E402
from bumble.core import UUID  # noqa: E402
from bumble.device import Peer  # noqa: E402

from bench_notify_cpu import resident_kib  # noqa: E402
from harness import profiles  # noqa: E402
from harness.central import Central  # noqa: E402
from harness.controller import HarnessController  # noqa: E402
from harness.daemon import Daemon  # noqa: E402
from harness.gatt import ClientTap, Session  # noqa: E402
from harness.security import RecordingDelegate, SecureCentral, disconnection, security_config  # noqa: E402
from harness.server import HarnessServer  # noqa: E402

ES_TEMPERATURE, HUMIDITY, PRESSURE = (UUID.from_16_bits(u) for u in (0x2A6E, 0x2A6F, 0x2A6D))
NOTIFYING = (HUMIDITY, PRESSURE, ES_TEMPERATURE)  # 2A6E needs the encrypted link
OPCODE_RESET = 0x0C03
OPCODE_LE_SET_ADVERTISING_ENABLE = 0x200A
DEFAULT_BINARY = str(Path(__file__).resolve().parents[2] / '.build' / 'debug' / 'blesensord')

SLOT_BACK = 'taking its command slot back'
CONTROLLER_RESET = 'resetting the controller'
TRANSMIT_TIMEOUT = 'no ACL packet completed'
ADVERTISING_ERROR = 'advertising: controller did not answer'
ACL_TRANSMIT_TIMEOUT_S = 10  # HCIHost.Configuration.aclTransmitTimeout
COMMAND_TIMEOUT_S = 2  # HCIHost.Configuration.commandTimeout


class Failure(Exception):
    """A step of the soak did not happen as the daemon's contract says."""


# -- the controller under the daemon: a peer that stops acknowledging -----------------------

# ACL on a handle within this long after its Disconnection Complete was written crossed the event on
# the wire (the daemon wrote it before it could read the event; the harness reads its socket when
# its event loop gets round to it). A pacing allowance, not a measured bound: later ones count as
# violations.
CROSSING_WINDOW = 0.05


class SoakController(HarnessController):
    """HarnessController whose links can stall: ACL the host sends on a stalled handle is kept
    (not sent on, not completed), as in a chip whose peer stopped acknowledging; the credits count
    as outstanding all the while. `resume` sends them on and lets them complete; a disconnection
    drops them (the controller frees its buffers, the host reclaims the credits)."""

    def __init__(self, *args, **kwargs) -> None:
        self.stalled: dict[int, list[hci.HCI_AclDataPacket]] = {}
        self.closed_at: dict[int, float] = {}  # handle -> when its Disconnection Complete was sent
        self.late_acl: list[tuple[int, float | None]] = []  # (handle, seconds after it closed)
        self.crossed_acl: list[tuple[int, float]] = []  # in flight when the link closed
        super().__init__(*args, **kwargs)

    def stall(self, handle: int) -> None:
        self.stalled.setdefault(handle, [])

    def resume(self, handle: int) -> int:
        held = self.stalled.pop(handle, [])
        for packet in held:
            # The parent counts it outstanding again and completes it (paced).
            self._outstanding[handle] = max(0, self._outstanding.get(handle, 0) - 1)
            super().on_hci_acl_data_packet(packet)
        return len(held)

    def on_hci_acl_data_packet(self, packet: hci.HCI_AclDataPacket) -> None:
        handle = packet.connection_handle
        if self.find_connection_by_handle(handle) is None:
            closed = self.closed_at.get(handle)
            delay = None if closed is None else time.monotonic() - closed
            if delay is not None and delay < CROSSING_WINDOW:
                # Written before the daemon could read the Disconnection Complete: the two crossed
                # on the wire. A chip drops such a packet, and the host reclaims the credit anyway.
                self.crossed_acl.append((handle, delay))
                return
            # The parent records the violation.
            self.late_acl.append((handle, delay))
        held = self.stalled.get(handle)
        if held is None or self.find_connection_by_handle(handle) is None:
            super().on_hci_acl_data_packet(packet)
            return
        if len(packet.data) > self.acl_buffer_size:
            self.violations.append(f'ACL packet of {len(packet.data)} bytes exceeds buffer size {self.acl_buffer_size}')
        self._outstanding[handle] = self._outstanding.get(handle, 0) + 1
        outstanding = sum(self._outstanding.values())
        self.peak_outstanding = max(self.peak_outstanding, outstanding)
        if outstanding > self.acl_credits:
            self.violations.append(f'host overran the {self.acl_credits} ACL credits (link 0x{handle:04X} stalled)')
        held.append(packet)

    def on_le_disconnected(self, connection, reason: int) -> None:
        self.stalled.pop(connection.handle, None)
        self.closed_at[connection.handle] = time.monotonic()
        super().on_le_disconnected(connection, reason)

    def reset_state(self) -> None:
        getattr(self, 'stalled', {}).clear()
        super().reset_state()

    def handle_of(self, address: str) -> int | None:
        for peer, connection in self.le_connections.items():
            if peer.to_string(with_type_qualifier=False).upper() == address.upper():
                return connection.handle
        return None


# -- the daemon ------------------------------------------------------------------------------

def soak_config(directory: Path, poll_interval: str) -> Path:
    """configs/security.yaml with 4 centrals, the room polled every `poll_interval`, and the
    `cellar` iio sensor (pressure, 2A6D) whose simulated sysfs tree the sensor fault garbles."""
    path = security_config(directory, name='soak.yaml')
    text = path.read_text()
    text, n = re.subn(r'^(  max-centrals:) \d+$', r'\1 4', text, flags=re.MULTILINE)
    assert n == 1, 'advertising.max-centrals not in configs/security.yaml'
    text, n = re.subn(r'^(    poll-interval:) \S+$', rf'\1 {poll_interval}', text, flags=re.MULTILINE)
    assert n == 1, 'the room sensor has no poll-interval in configs/security.yaml'
    cellar = ('  - name: cellar\n    driver: iio\n    device: dht11\n'
              f'    poll-interval: {poll_interval}\n    publish: [pressure]\n'
              '    simulation: {pressure: 98000}\n')
    assert '\nsecurity:\n' in text
    text = text.replace('\nsecurity:\n', '\n' + cellar + 'security:\n', 1)
    path.write_text(text)
    return path


async def spawn(argv: list[str], env: dict[str, str]) -> Daemon:
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE)
    return Daemon(process, argv)


async def wait_log(daemon: Daemon, text: str, start: int, timeout: float) -> tuple[int, str]:
    """The first line at index >= `start` containing `text`: (index, line). Only new lines are
    scanned on each wake-up (a 30-minute log is long)."""
    async def wait() -> tuple[int, str]:
        index = start
        while True:
            lines = daemon.lines
            while index < len(lines):
                if text in lines[index]:
                    return index, lines[index]
                index += 1
            if daemon.process.returncode is not None or daemon._reader.done():
                raise Failure(f'daemon exited (code {daemon.process.returncode}) before logging {text!r}')
            daemon._changed.clear()
            await daemon._changed.wait()

    try:
        return await asyncio.wait_for(wait(), timeout)
    except asyncio.TimeoutError:
        raise Failure(f'daemon did not log {text!r} within {timeout:.0f} s') from None


def lines_with(daemon: Daemon, text: str) -> list[str]:
    return [line for line in daemon.lines if text in line]


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process (all its threads, including exited ones), /proc/PID/stat."""
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def rss_mib(pid: int) -> float:
    return resident_kib(pid)[0] / 1024


# -- the centrals ----------------------------------------------------------------------------

@dataclasses.dataclass
class CentralStats:
    connections: int = 0
    pairings: int = 0
    re_encryptions: int = 0
    notifications: int = 0  # of finished sessions
    connect_retries: int = 0
    dropped_by_daemon: int = 0  # the daemon ended the link (expected only for a lasting stall)
    errors: list[str] = dataclasses.field(default_factory=list)
    longest_unserved: float = 0.0  # seconds from wanting to connect to connected


class SoakCentral:
    """One Bumble central looping connect / pair or re-encrypt / subscribe / receive / disconnect."""

    def __init__(self, soak: Soak, index: int) -> None:
        self.soak = soak
        suffix = f'{0xC1 + index:02X}'
        self.central = Central(soak.server.link, address=f'C0:00:00:00:00:{suffix}',
                               public_address=f'00:1B:DC:F0:00:{suffix}', name=f'soak-central-{index + 1}')
        self.name = f'C{index + 1}'
        self.secure: SecureCentral | None = None
        self.stats = CentralStats()
        self.bonded = False
        self.session: Session | None = None
        self.receiving = False  # subscribed and notified: nothing of ours is awaiting an answer
        self.held = False  # a stall fault keeps the link up until it is over
        self.released = asyncio.Event()
        self.released.set()
        self.gone: asyncio.Future | None = None
        self.unexpected_drops_allowed = 0

    @property
    def address(self) -> str:
        return self.central.address

    def live_notifications(self) -> int:
        session = self.session
        current = sum(len(v) for v in session.tap.notifications.values()) if session else 0
        return self.stats.notifications + current

    async def start(self) -> None:
        await self.central.power_on()
        self.secure = SecureCentral(self.central)
        self.secure.use(RecordingDelegate())  # LESC Just Works

    async def run(self) -> None:
        soak = self.soak
        while not soak.stopping.is_set():
            try:
                await self.cycle()
            except Failure as error:
                self.stats.errors.append(f'{soak.clock()} {error}')
            except (asyncio.TimeoutError, hci.HCI_Error, Exception) as error:  # noqa: BLE001
                if isinstance(error, asyncio.CancelledError):
                    raise
                self.stats.errors.append(f'{soak.clock()} {type(error).__name__}: {error}')
            finally:
                await self.end_session()

    async def connect(self) -> None:
        """Scan and connect, one central at a time: Bumble's virtual link lets every central whose
        connection is pending answer the same ADV_IND, and the advertiser's controller then takes
        only the first CONNECT_IND while the others believe they are connected (their controllers
        then report "Connection ... already exists?" for good). On air one CONNECT_IND wins an
        advertising event and the others try again on a later one, which the lock stands for."""
        soak, daemon = self.soak, self.soak.daemon
        wanted = time.monotonic()
        while True:
            if soak.stopping.is_set():
                raise asyncio.CancelledError
            async with soak.air:
                start = len(daemon.lines)
                try:
                    record = await self.central.scan_for(None, timeout=5)
                    connection = await self.central.connect(record.address, timeout=5)
                except Exception:  # noqa: BLE001 - Bumble's and asyncio's timeouts, HCI errors
                    connection = None
                if connection is not None:
                    gone = disconnection(connection)
                    try:
                        # "central connected: link#N handle H peripheral peer ADDRESS (random) ..."
                        await wait_log(daemon, f'peer {self.address}', start, 10)
                    except Failure:
                        if not gone.done():
                            await asyncio.wait_for(connection.disconnect(), 10)
                        raise
                    break
            # Nobody advertising (all slots taken, or advertising lost): count it, try again.
            self.stats.connect_retries += 1
            unserved = time.monotonic() - wanted
            if unserved > soak.args.max_unserved:
                raise Failure(f'{self.name}: not connected for {unserved:.0f} s (advertising lost?)')
        self.stats.longest_unserved = max(self.stats.longest_unserved, time.monotonic() - wanted)
        self.gone = gone
        peer = Peer(connection)
        self.session = Session(self.central, record, connection, peer, ClientTap(peer.gatt_client))
        self.stats.connections += 1
        soak.connections += 1

    async def cycle(self) -> None:
        soak, daemon = self.soak, self.soak.daemon
        try:
            await self.connect()
        except asyncio.CancelledError:
            if soak.stopping.is_set():
                return
            raise
        session = self.session
        await session.discover(timeout=15)
        start = len(daemon.lines)
        if not self.bonded:
            await self.secure.pair(session.connection, timeout=15)
            await wait_log(daemon, f'paired {self.address}, bonded', start, 30)
            self.bonded = True
            self.stats.pairings += 1
        else:
            # Re-encryption with the stored LTK: no pairing (the daemon restores the subscriptions).
            smp_before = len(self.secure.smp)
            await self.secure.encrypt(session.connection, timeout=15)
            if len(self.secure.smp) != smp_before:
                raise Failure(f'{self.name}: re-encryption with the bond ran SMP')
            self.stats.re_encryptions += 1
        for uuid in NOTIFYING:
            await asyncio.wait_for(session.peer.subscribe(session.characteristic(uuid), lambda _v: None), 15)
        handles = {session.characteristic(uuid).handle for uuid in NOTIFYING}
        await session.tap.wait_for(lambda: all(session.tap.notifications[h] for h in handles),
                                   soak.poll_seconds * 4 + 10, f'{self.name}: a notification of each characteristic')
        # Receive for a while (the soak's own pacing), unless the link goes or the soak ends.
        self.receiving = True
        soak.changed.set()
        stay = asyncio.ensure_future(asyncio.sleep(soak.args.connected * soak.random.uniform(0.5, 1.5)))
        stop = asyncio.ensure_future(soak.stopping.wait())
        try:
            await asyncio.wait([stay, stop, self.gone], return_when=asyncio.FIRST_COMPLETED)
            if not self.gone.done():
                # A stall fault holds the link until it is over (or the daemon drops it).
                released = asyncio.ensure_future(self.released.wait())
                await asyncio.wait([released, self.gone], return_when=asyncio.FIRST_COMPLETED)
                released.cancel()
        finally:
            stay.cancel()
            stop.cancel()
            self.receiving = False
        if self.gone.done():
            self.stats.dropped_by_daemon += 1
            if self.unexpected_drops_allowed > 0:
                self.unexpected_drops_allowed -= 1
            else:
                raise Failure(f'{self.name}: link dropped (reason 0x{self.gone.result():02X}) though it was acknowledging')
            return
        await self.central.disconnect(session.connection, timeout=10)
        await asyncio.wait_for(self.gone, 10)

    async def end_session(self) -> None:
        session, self.session = self.session, None
        self.receiving = False
        if session is None:
            return
        self.stats.notifications += sum(len(v) for v in session.tap.notifications.values())
        if self.gone is not None and not self.gone.done():
            try:
                await self.central.disconnect(session.connection, timeout=10)
                await asyncio.wait_for(self.gone, 10)
            except Exception as error:  # noqa: BLE001
                self.stats.errors.append(f'{self.soak.clock()} {self.name}: disconnect after an error: {error!r}')


# -- the soak --------------------------------------------------------------------------------

@dataclasses.dataclass
class FaultRecord:
    kind: str
    at: str
    outcome: str
    ok: bool
    excerpt: list[str] = dataclasses.field(default_factory=list)


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.random = random.Random(args.seed)
        self.poll_seconds = parse_duration(args.poll_interval)
        self.stopping = asyncio.Event()
        self.changed = asyncio.Event()  # a central started receiving
        self.connections = 0
        self.faults: list[FaultRecord] = []
        self.failures: list[str] = []
        self.started = time.monotonic()
        self.fault_lock = asyncio.Lock()  # one stall at a time
        self.air = asyncio.Lock()  # one central connecting at a time (see SoakCentral.connect)

    def clock(self) -> str:
        elapsed = int(time.monotonic() - self.started)
        return f'[{elapsed // 60:3d}:{elapsed % 60:02d}]'

    def say(self, text: str) -> None:
        print(f'{self.clock()} {text}', flush=True)

    # -- setup ---------------------------------------------------------------------------
    async def setup(self) -> None:
        args = self.args
        self.work = Path(tempfile.mkdtemp(prefix='blesensor-soak-'))
        self.tmp = self.work / 'tmp'
        self.tmp.mkdir()
        self.server = HarnessServer()
        # The controller under the daemon: ours, with links that can stall.
        old = self.server.controller
        self.server.link.remove_controller(old)
        self.controller = SoakController('dut-controller', link=self.server.link, public_address='00:1B:DC:F0:00:01')
        self.server.controller = self.controller
        self.profile = profiles.apply(self.controller, args.profile)
        await self.server.start()
        config = soak_config(self.work, args.poll_interval)
        argv = [args.binary, '--transport', f'tcp:127.0.0.1:{self.server.port}', '--name', 'soak',
                '--config', str(config), '--state-dir', str(self.work / 'state'),
                '--control-socket', str(self.work / 'control.sock')]
        env = dict(os.environ, TMPDIR=str(self.tmp) + '/')
        self.daemon = await spawn(argv, env)
        self.pid = self.daemon.process.pid
        await wait_log(self.daemon, 'advertising enabled', 0, 30)
        self.centrals = [SoakCentral(self, i) for i in range(4)]
        for central in self.centrals:
            await central.start()
        self.rss_start = rss_mib(self.pid)
        self.cpu_start = cpu_seconds(self.pid)
        size, count = profiles.acl_buffers(self.profile)
        self.say(f'blesensord pid {self.pid} on {args.profile} (ACL {count} x {size}, completions every '
                 f'{self.profile["completions"]["interval_ms"]} ms, at most {self.profile["completions"]["max_per_event"]}), '
                 f'4 centrals, sensors polled every {args.poll_interval}, connected ~{args.connected:g} s a time; '
                 f'RSS {self.rss_start:.1f} MiB; work directory {self.work}')

    # -- measurements --------------------------------------------------------------------
    def notifications(self) -> list[int]:
        return [c.live_notifications() for c in self.centrals]

    def alive(self) -> bool:
        return self.daemon.process.returncode is None and os.path.exists(f'/proc/{self.pid}')

    def progress(self) -> str:
        counts = self.notifications()
        cpu = cpu_seconds(self.pid) - self.cpu_start if self.alive() else float('nan')
        per = cpu / max(1, sum(counts)) * 1e6
        kinds = [f.kind for f in self.faults]
        errors = sum(len(c.stats.errors) for c in self.centrals)
        return (f'connections {self.connections} (reconnections {max(0, self.connections - 4)}), '
                f'notifications {"/".join(map(str, counts))}, '
                f'RSS {rss_mib(self.pid) if self.alive() else float("nan"):.1f} MiB, CPU {cpu:.1f} s ({per:.0f} µs/notification), '
                f'faults: dropped replies {kinds.count("dropped reply")}, sensor {kinds.count("sensor")}, '
                f'stalls {kinds.count("short stall")}+{kinds.count("lasting stall")}, central errors {errors}')

    async def report_progress(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            if not self.alive():
                self.say('daemon is gone')
                return
            self.say(self.progress())

    # -- faults --------------------------------------------------------------------------
    async def fault_rounds(self, first: float, every: float, end: float) -> None:
        at = first
        while at < end:
            await asyncio.sleep(max(0.0, self.started + at - time.monotonic()))
            if self.stopping.is_set() or not self.alive():
                return
            await asyncio.gather(self.guard('dropped reply', self.dropped_reply()),
                                 self.guard('sensor', self.sensor_fault()),
                                 self.guard('stall', self.stalls()))
            at += every

    async def guard(self, kind: str, fault) -> None:
        try:
            await fault
        except Exception as error:  # noqa: BLE001 - recorded as a fault not handled
            text = str(error) if isinstance(error, Failure) else f'{type(error).__name__}: {error}'
            self.faults.append(FaultRecord(kind, self.clock(), text, False))

    async def dropped_reply(self) -> None:
        controller, daemon = self.controller, self.daemon
        since, start = len(controller.commands), len(daemon.lines)
        resets_before = sum(r.opcode == OPCODE_RESET for r in controller.commands)
        dropped_before = len(controller.dropped_replies)
        controller.drop_reply_once.add(OPCODE_LE_SET_ADVERTISING_ENABLE)
        sent = await wait_with(controller.wait_for_command(lambda r: r.opcode == OPCODE_LE_SET_ADVERTISING_ENABLE, since),
                               60, 'the daemon to send LE Set Advertising Enable')
        index = controller.commands.index(sent, since)
        if len(controller.dropped_replies) != dropped_before + 1:
            raise Failure('the harness did not drop the reply')
        enable = sent.parameters[:1].hex()
        t0 = sent.time
        _, line = await wait_log(daemon, SLOT_BACK, start, COMMAND_TIMEOUT_S + 10)
        slot_back_at = time.monotonic()
        slot_back = slot_back_at - t0
        free_slots = 4 - len(controller.le_connections)
        excerpt = [line]
        # Advertising again: the next LE Set Advertising Enable (answered this time).
        again = await wait_with(controller.wait_for_command(
            lambda r: r.opcode == OPCODE_LE_SET_ADVERTISING_ENABLE and r.parameters[:1] == b'\x01', index + 1),
            self.args.max_unserved, 'LE Set Advertising Enable after the lost reply')
        readvertised = again.time - t0
        # With a slot free, advertising is wanted: the daemon should try again once it has the
        # command slot back, not only when the next central comes or goes.
        off_after_slot_back = max(0.0, again.time - slot_back_at)
        retried = free_slots == 0 or off_after_slot_back <= self.args.readvertise_within
        after = [l for l in daemon.lines[start:] if 'advertising' in l and ('error' in l or 'enabled' in l)][:2]
        excerpt += after
        resets = sum(r.opcode == OPCODE_RESET for r in controller.commands) - resets_before
        said_reset = [l for l in daemon.lines[start:] if CONTROLLER_RESET in l]
        ok = resets == 0 and not said_reset and retried
        self.faults.append(FaultRecord(
            'dropped reply', self.clock(),
            f'LE Set Advertising Enable({enable}) unanswered: slot taken back after {slot_back:.1f} s, '
            f'advertising enabled again {readvertised:.1f} s after the loss '
            f'({off_after_slot_back:.1f} s after the slot came back, {free_slots} of 4 slots free then'
            f'{"" if retried else f"; not retried within {self.args.readvertise_within:g} s"}), '
            f'controller resets {resets}', ok, excerpt + said_reset))

    def cellar_files(self) -> list[Path]:
        return sorted(self.tmp.glob('sysfs-*/bus/iio/devices/iio:device*/in_pressure_input'))

    async def sensor_fault(self) -> None:
        daemon = self.daemon
        files = self.cellar_files()
        if not files:
            raise Failure(f'no simulated iio tree of the cellar sensor under {self.tmp}')
        start = len(daemon.lines)
        t0 = time.monotonic()
        for path in files:
            path.write_text('garbled\n')  # a dht11 read that went wrong
        limit = self.poll_seconds * 4 + 10
        _, failed = await wait_log(daemon, 'sensor cellar: ', start, limit)
        _, again = await wait_log(daemon, 'sensor cellar: reading again', start, limit + 60)
        recovered = time.monotonic() - t0
        ok = 'retrying' in failed
        self.faults.append(FaultRecord(
            'sensor', self.clock(), f'cellar failed and read again after {recovered:.1f} s '
            f'({len(files)} tree(s) garbled)', ok, [failed, again]))

    async def receiving_central(self, exclude: SoakCentral | None = None) -> SoakCentral:
        async def pick() -> SoakCentral:
            while True:
                candidates = [c for c in self.centrals if c.receiving and not c.held and c is not exclude
                              and c.gone is not None and not c.gone.done()]
                if candidates:
                    return self.random.choice(candidates)
                self.changed.clear()
                await self.changed.wait()
        return await wait_with(pick(), 60, 'a central receiving notifications')

    async def stalls(self) -> None:
        async with self.fault_lock:
            # Another central the second time: the first one, just released, is still on its way
            # out of the link it was stalled on.
            first = await self.stall(lasting=False)
            await self.stall(lasting=True, exclude=first)

    async def stall(self, lasting: bool, exclude: SoakCentral | None = None) -> SoakCentral:
        kind = 'lasting stall' if lasting else 'short stall'
        controller, daemon = self.controller, self.daemon
        central = await self.receiving_central(exclude)
        central.held = True
        central.released.clear()
        try:
            handle = controller.handle_of(central.address)
            if handle is None:
                raise Failure(f'{central.name}: no link at the controller')
            others = {c.name: c.live_notifications() for c in self.centrals if c is not central}
            receiving = {c.name for c in self.centrals if c is not central and c.receiving}
            before = central.live_notifications()
            start = len(daemon.lines)
            t0 = time.monotonic()
            if lasting:
                central.unexpected_drops_allowed += 1
            controller.stall(handle)
            if lasting:
                # Packets it took before the daemon gave up on it (the link's list goes with the link).
                held_list = controller.stalled[handle]
                try:
                    _, line = await wait_log(daemon, TRANSMIT_TIMEOUT, start, ACL_TRANSMIT_TIMEOUT_S + 15)
                except Failure as error:
                    raise Failure(
                        f'{error}: {central.name} (handle 0x{handle:04X}) stalled with '
                        f'{len(controller.stalled.get(handle, []))} packets held, '
                        f'{central.live_notifications() - before} notifications received meanwhile, '
                        f'link {"up" if not central.gone.done() else "gone"}') from None
                await wait_with(asyncio.shield(central.gone), 10, f'{central.name} disconnected by the daemon')
                dropped_after = time.monotonic() - t0
                held = len(held_list)
                gained = {name: c.live_notifications() - others[c.name]
                          for c in self.centrals if c is not central for name in [c.name]}
                # The centrals receiving when the stall began went on getting notifications.
                served = not receiving or any(gained[name] > 0 for name in receiving)
                disconnected = [l for l in daemon.lines[start:] if f'central disconnected: {central.address}' in l][:1]
                self.faults.append(FaultRecord(
                    kind, self.clock(),
                    f'{central.name} stopped acknowledging ({held} packets held): dropped by the daemon after '
                    f'{dropped_after:.1f} s; others meanwhile got {", ".join(f"{k} +{v}" for k, v in gained.items())} '
                    f'(receiving when it began: {", ".join(sorted(receiving)) or "none"})', served,
                    [line] + disconnected))
            else:
                hold = min(4.0, ACL_TRANSMIT_TIMEOUT_S / 2)
                await asyncio.sleep(hold)  # the fault's own duration
                if central.gone.done():
                    raise Failure(f'{central.name}: link dropped during a {hold:.0f} s stall (below the transmit timeout)')
                held = controller.resume(handle)
                at_resume = central.live_notifications()
                session = central.session
                await session.tap.wait_for(lambda: central.live_notifications() > at_resume + held,
                                           self.poll_seconds * 4 + 10, f'{central.name}: notifications after the stall')
                timed_out = [l for l in daemon.lines[start:] if TRANSMIT_TIMEOUT in l]
                self.faults.append(FaultRecord(
                    kind, self.clock(),
                    f'{central.name} stopped acknowledging for {hold:.0f} s ({held} packets held, '
                    f'{at_resume - before} notifications received meanwhile); resumed, notified again',
                    not timed_out, timed_out))
        finally:
            central.held = False
            central.released.set()
        return central

    # -- the run -------------------------------------------------------------------------
    async def run(self) -> int:
        args = self.args
        duration = args.minutes * 60
        await self.setup()
        self.started = time.monotonic()
        tasks = [asyncio.ensure_future(c.run()) for c in self.centrals]
        progress_every = min(60.0, max(10.0, duration / 3))
        progress = asyncio.ensure_future(self.report_progress(progress_every))
        warm_up = min(60.0, duration * 0.3)
        first_fault = min(args.fault_every, max(5.0, duration * 0.25))
        faults = asyncio.ensure_future(self.fault_rounds(first_fault, args.fault_every, duration))
        try:
            await self.sleep_until(warm_up)
            self.rss_warm = rss_mib(self.pid) if self.alive() else float('nan')
            self.cpu_warm, self.notifications_warm = cpu_seconds(self.pid) if self.alive() else 0, sum(self.notifications())
            self.say(f'warm-up over: RSS {self.rss_warm:.1f} MiB (the growth bound applies from here)')
            await self.sleep_until(duration)
            # Faults under way finish (each has its own time limit), then the centrals stop.
            self.say('time is up: waiting for the faults under way, then the centrals stop')
            await asyncio.wait_for(faults, 120)
        except asyncio.TimeoutError:
            self.failures.append('a fault round did not finish within 120 s after the end')
            faults.cancel()
        finally:
            progress.cancel()
            if self.alive():
                self.rss_end = rss_mib(self.pid)
                self.hwm_end = resident_kib(self.pid)[1] / 1024
                self.cpu_end = cpu_seconds(self.pid)
            else:
                self.rss_end = self.hwm_end = self.cpu_end = float('nan')
            self.stopping.set()
            done, pending = await asyncio.wait(tasks, timeout=60)
            for task in pending:
                task.cancel()
                self.failures.append('a central did not stop within 60 s')
            for task in done:
                if task.exception() is not None:
                    self.failures.append(f'a central loop crashed: {task.exception()!r}')
        return await self.finish()

    async def sleep_until(self, offset: float) -> None:
        """Pacing of the soak itself; ends early when the daemon dies."""
        while (left := self.started + offset - time.monotonic()) > 0:
            if not self.alive():
                raise Failure('daemon died')
            await asyncio.sleep(min(left, 1.0))

    async def finish(self) -> int:
        args, controller, daemon = self.args, self.controller, self.daemon
        alive = self.alive()
        counts = [c.stats.notifications for c in self.centrals]
        total = sum(counts)
        print()
        print(f'== soak of {args.minutes:g} min on {args.profile}, faults every {args.fault_every:g} s ==')
        reconnections = max(0, self.connections - len(self.centrals))
        print(f'connections served: {self.connections} ({reconnections} reconnections)')
        for c in self.centrals:
            s = c.stats
            print(f'  {c.name} {c.address}: {s.connections} connections, {s.pairings} pairing(s), '
                  f'{s.re_encryptions} re-encryptions, {s.notifications} notifications, '
                  f'{s.connect_retries} scans/connects retried, longest wait for a connection {s.longest_unserved:.1f} s, '
                  f'dropped by the daemon {s.dropped_by_daemon}, errors {len(s.errors)}')
            for error in s.errors[:10]:
                print(f'      {error}')
        print(f'notifications delivered: {total} ({"/".join(map(str, counts))})')
        cpu = self.cpu_end - self.cpu_start
        print(f'daemon CPU (utime+stime): {cpu:.2f} s, {cpu / max(1, total) * 1e6:.0f} µs per delivered notification'
              f' (after the warm-up: {(self.cpu_end - self.cpu_warm) / max(1, total - self.notifications_warm) * 1e6:.0f} µs)')
        growth = self.rss_end - self.rss_warm
        print(f'daemon RSS: {self.rss_start:.1f} MiB at start, {self.rss_warm:.1f} MiB after the warm-up, '
              f'{self.rss_end:.1f} MiB at the end (growth {growth:+.1f} MiB, bound {args.rss_growth_mib:g} MiB; '
              f'peak {self.hwm_end:.1f} MiB)')
        restarts = 0 if alive else 1
        print(f'daemon restarts: {restarts} (pid {self.pid} {"alive" if alive else "gone"}); '
              f'transport connections to the harness: {self.server.host_connections}')
        resets = sum(r.opcode == OPCODE_RESET for r in controller.commands)
        print(f'HCI Reset commands: {resets} (bring-up only: 1); "{CONTROLLER_RESET}" lines: '
              f'{len(lines_with(daemon, CONTROLLER_RESET))}')
        print(f'flow control: violations {len(controller.violations)}, peak outstanding ACL '
              f'{controller.peak_outstanding} of {controller.acl_credits} credits'
              + ''.join(f'; {c.name} violations {len(c.central.controller.violations)}' for c in self.centrals
                        if c.central.controller.violations))
        for violation in controller.violations[:10]:
            print(f'  {violation}')
        if controller.crossed_acl:
            slowest = max(delay for _, delay in controller.crossed_acl)
            print(f'ACL packets that crossed a Disconnection Complete (arrived within {CROSSING_WINDOW * 1000:.0f} ms; '
                  f'dropped as a chip does, not violations): {len(controller.crossed_acl)}, the latest {slowest * 1000:.1f} ms after it')
        for handle, delay in controller.late_acl[:10]:
            after = 'no Disconnection Complete sent for it' if delay is None else f'{delay * 1000:.1f} ms after its Disconnection Complete was sent'
            print(f'  ACL on closed handle 0x{handle:04X}: {after}')
        slot_back = lines_with(daemon, SLOT_BACK)
        print(f'dropped replies injected: {len(controller.dropped_replies)} '
              f'({", ".join(f"0x{o:04X}" for o in controller.dropped_replies) or "-"}); "{SLOT_BACK}" lines: {len(slot_back)}')
        print(f'transmit timeouts (links dropped for not acknowledging): {len(lines_with(daemon, TRANSMIT_TIMEOUT))}')
        trees = sorted(p.name for p in self.tmp.glob('sysfs-*'))
        print(f'simulated sysfs trees left in the daemon\'s TMPDIR: {len(trees)} (1 expected: reopened ones are removed)')
        print('faults:')
        for fault in self.faults:
            print(f'  {fault.at} {fault.kind}: {"ok" if fault.ok else "NOT OK"}: {fault.outcome}')
            for line in fault.excerpt:
                print(f'      | {line}')
        warnings = [l for l in daemon.lines if ' error ' in l or ' warning ' in l or ' critical ' in l]
        print(f'daemon warnings/errors logged: {len(warnings)}')
        for line in warnings[:15]:
            print(f'  | {line}')

        # Invariants.
        failures = list(self.failures)
        if not alive:
            failures.append(f'the daemon died (exit {daemon.process.returncode})')
        if self.server.host_connections != 1:
            failures.append(f'the daemon connected to the controller {self.server.host_connections} times')
        if controller.violations or any(c.central.controller.violations for c in self.centrals):
            failures.append('flow control / framing violations')
        if controller.peak_outstanding > controller.acl_credits:
            failures.append('ACL credits overrun')
        if resets != 1 or lines_with(daemon, CONTROLLER_RESET):
            failures.append('the controller was reset after bring-up')
        advertising_errors = lines_with(daemon, ADVERTISING_ERROR)
        if len(advertising_errors) > len(controller.dropped_replies):
            failures.append(f'{len(advertising_errors)} "{ADVERTISING_ERROR}" lines for {len(controller.dropped_replies)} lost replies: '
                            'one failure is logged once')
        if len(slot_back) != len(controller.dropped_replies):
            failures.append(f'{len(controller.dropped_replies)} dropped replies but {len(slot_back)} "{SLOT_BACK}" lines')
        if not growth <= args.rss_growth_mib:
            failures.append(f'RSS grew by {growth:.1f} MiB after the warm-up (bound {args.rss_growth_mib:g} MiB)')
        if any(n == 0 for n in counts):
            failures.append('a central got no notifications')
        if any(c.stats.connections < 2 for c in self.centrals):
            failures.append('a central never reconnected')
        if any(c.stats.errors for c in self.centrals):
            failures.append('central cycles failed (see the errors above)')
        if any(not f.ok for f in self.faults):
            failures.append('a fault was not handled (see the faults above)')
        kinds = {f.kind for f in self.faults}
        if self.faults == [] or not {'dropped reply', 'sensor', 'short stall', 'lasting stall'} <= kinds:
            failures.append(f'not every fault was injected (got {sorted(kinds)})')
        if len(trees) > 1:
            failures.append(f'{len(trees)} simulated sysfs trees left: reopened sensor sources leak')

        # An orderly stop: SIGTERM, exit 0.
        if alive:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                code = await asyncio.wait_for(self.daemon.process.wait(), 15)
                print(f'SIGTERM: exited {code}')
                if code != 0:
                    failures.append(f'exit code {code} after SIGTERM')
            except asyncio.TimeoutError:
                failures.append('still running 15 s after SIGTERM')
        await self.daemon.kill()
        (self.work / 'daemon.log').write_text(daemon.log + '\n')
        print(f'daemon log: {self.work / "daemon.log"}')
        await self.server.close()
        if failures:
            print('INVARIANTS BROKEN:')
            for failure in failures:
                print(f'  - {failure}')
            return 1
        print('all invariants held')
        return 0


async def wait_with(awaitable, timeout: float, what: str):
    try:
        return await asyncio.wait_for(awaitable, timeout)
    except asyncio.TimeoutError:
        raise Failure(f'timed out after {timeout:.0f} s waiting for {what}') from None


def parse_duration(text: str) -> float:
    match = re.fullmatch(r'(\d+(?:\.\d+)?)(ms|s)', text)
    if not match:
        raise argparse.ArgumentTypeError(f'{text!r}: give e.g. 250ms or 1s')
    value = float(match.group(1))
    return value / 1000 if match.group(2) == 'ms' else value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--minutes', type=float, default=30.0)
    parser.add_argument('--fault-every', type=float, default=120.0, help='seconds between fault rounds')
    paced = [name for name, p in profiles.profiles().items() if p['completions']['interval_ms'] > 0]
    parser.add_argument('--profile', default='cyw43455', choices=paced, help='an interval-paced controller profile')
    parser.add_argument('--poll-interval', default='250ms', help='both sensors (configs/security.yaml: 1s)')
    parser.add_argument('--connected', type=float, default=5.0,
                        help='seconds a central stays connected (each time 0.5 to 1.5 times that)')
    parser.add_argument('--rss-growth-mib', type=float, default=20.0)
    parser.add_argument('--max-unserved', type=float, default=60.0,
                        help='seconds a central may wait for a connection before the run fails')
    parser.add_argument('--readvertise-within', type=float, default=5.0,
                        help='seconds after taking the slot of a lost LE Set Advertising Enable back within which '
                             'the daemon must advertise again when a slot is free')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--verbose', action='store_true', help="Bumble's and the harness's warnings too")
    args = parser.parse_args()
    parse_duration(args.poll_interval)
    args.binary = os.environ.get('BLESENSORD', DEFAULT_BINARY)
    if not os.path.isfile(args.binary) or not os.access(args.binary, os.X_OK):
        print(f'BLESENSORD={args.binary} is not an executable file', file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING)
    if not args.verbose:
        # "received notification with no subscriber": the daemon restores a bonded central's
        # subscriptions at encryption, before this central's Bumble subscribes again.
        logging.getLogger('bumble').setLevel(logging.ERROR)
        logging.getLogger('harness').setLevel(logging.ERROR)
    soak = None

    async def run() -> int:
        nonlocal soak
        soak = Soak(args)
        try:
            return await soak.run()
        except Failure as error:
            print(f'INVARIANTS BROKEN: {error}')
            if getattr(soak, 'daemon', None) is not None:
                print('\n'.join(soak.daemon.lines[-40:]))
                await soak.daemon.kill()
            return 1

    return asyncio.run(run())


if __name__ == '__main__':
    sys.exit(main())
