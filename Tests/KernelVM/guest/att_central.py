#!/usr/bin/python3
"""The kernel's own host as a GATT central: an LE L2CAP socket on the ATT channel (CID 4) from a
given controller to a peripheral, discovery of one characteristic, a CCCD write, then counting its
notifications at ATT MTU 23 (no MTU exchange).

Used by the kernel tests (a stream to the kernel's host must arrive whole and leave the peripheral
running) and by Tests/KernelVM/bench-notify-bluez.sh, which passes --measure PIDS: at each mark the
central reads the CPU time (user+sys) of those processes, of the whole guest (/proc/stat) and of
every thread in it, so the figures are taken at the exact notification count.

Run with Debian's /usr/bin/python3 (pyenv's interpreter here has no AF_BLUETOOTH). Prints one JSON
line at the end; exits 0 when --count notifications arrived in order before --timeout.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import json
import os
import re
import socket
import struct
import sys
import time

AF_BLUETOOTH, BTPROTO_L2CAP, BTPROTO_HCI = 31, 0, 1
BDADDR_LE_PUBLIC, BDADDR_LE_RANDOM = 1, 2
ATT_CID = 4
HCIGETDEVINFO = 0x800448D3  # _IOR('H', 211, int)


class SockaddrL2(ctypes.Structure):
    _fields_ = [('family', ctypes.c_ushort), ('psm', ctypes.c_ushort), ('bdaddr', ctypes.c_ubyte * 6),
                ('cid', ctypes.c_ushort), ('bdaddr_type', ctypes.c_ubyte)]


def address_bytes(text: str) -> bytes:
    return bytes(int(part, 16) for part in reversed(text.split(':')))


def controller_address(index: int) -> str:
    """hciN's address through HCIGETDEVINFO (struct hci_dev_info: dev_id, name[8], bdaddr)."""
    with socket.socket(AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI) as hci:
        request = bytearray(struct.pack('<H', index) + bytes(256))
        fcntl.ioctl(hci.fileno(), HCIGETDEVINFO, request)
        return ':'.join(f'{b:02X}' for b in reversed(request[10:16]))


def sockaddr(address: str, kind: int) -> SockaddrL2:
    result = SockaddrL2()
    result.family = AF_BLUETOOTH
    result.bdaddr = (ctypes.c_ubyte * 6)(*address_bytes(address))
    result.cid = ATT_CID
    result.bdaddr_type = kind
    return result


def connect(source: str, peer: str, peer_type: int, timeout: float) -> socket.socket:
    libc = ctypes.CDLL(None, use_errno=True)
    sock = socket.socket(AF_BLUETOOTH, socket.SOCK_SEQPACKET, BTPROTO_L2CAP)
    local, remote = sockaddr(source, BDADDR_LE_PUBLIC), sockaddr(peer, peer_type)
    if libc.bind(sock.fileno(), ctypes.byref(local), ctypes.sizeof(local)) != 0:
        raise OSError(ctypes.get_errno(), f'bind to {source}: {os.strerror(ctypes.get_errno())}')
    sock.settimeout(timeout)  # also bounds the blocking connect below through SO_SNDTIMEO
    timeval = struct.pack('ll', int(timeout), 0)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
    sock.setblocking(True)
    if libc.connect(sock.fileno(), ctypes.byref(remote), ctypes.sizeof(remote)) != 0:
        raise OSError(ctypes.get_errno(), f'connect to {peer}: {os.strerror(ctypes.get_errno())}')
    return sock


ATT_REQUESTS = {0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20}


def answer_server_request(sock: socket.socket, pdu: bytes) -> bool:
    """The peer's own GATT client (bluetoothd discovers every central it serves) asks us things:
    an empty database answers, so its 30 s ATT timeout never drops the link."""
    if not pdu or pdu[0] not in ATT_REQUESTS:
        return False
    if pdu[0] == 0x02:
        sock.send(struct.pack('<BH', 0x03, 23))
    else:
        handle = struct.unpack('<H', pdu[1:3])[0] if len(pdu) >= 3 else 0
        sock.send(struct.pack('<BBHB', 0x01, pdu[0], handle, 0x0A))  # Attribute Not Found
    return True


class Client:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def request(self, pdu: bytes, answers: set[int]) -> bytes:
        self.sock.send(pdu)
        while True:
            reply = self.sock.recv(512)
            if answer_server_request(self.sock, reply):
                continue
            if reply and (reply[0] in answers or reply[0] == 0x01):
                return reply

    def characteristic(self, uuid16: int) -> tuple[int, int]:
        """(value handle, end of the characteristic) by Read By Type on 0x2803."""
        start, found = 1, None
        while start <= 0xFFFF:
            reply = self.request(struct.pack('<BHHH', 0x08, start, 0xFFFF, 0x2803), {0x09})
            if reply[0] == 0x01:
                break
            length = reply[1]
            entries = [reply[i:i + length] for i in range(2, len(reply), length)]
            for entry in entries:
                handle, _props, value_handle = struct.unpack('<HBH', entry[:5])
                uuid = entry[5:]
                if found is not None:
                    return found[0], handle - 1
                if len(uuid) == 2 and struct.unpack('<H', uuid)[0] == uuid16:
                    found = (value_handle,)
                start = handle + 1
        if found is None:
            raise RuntimeError(f'no characteristic 0x{uuid16:04X}')
        return found[0], 0xFFFF

    def cccd(self, value_handle: int, end: int) -> int:
        reply = self.request(struct.pack('<BHH', 0x04, value_handle + 1, end), {0x05})
        if reply[0] == 0x05:
            step = 4 if reply[1] == 1 else 18
            for i in range(2, len(reply), step):
                handle, uuid = struct.unpack('<HH', reply[i:i + 4])
                if reply[1] == 1 and uuid == 0x2902:
                    return handle
        raise RuntimeError(f'no CCCD after handle {value_handle}')


def thread_files(pids: list[int], *names: str):
    """(pid, tid, texts of /proc/PID/task/TID/NAME for each name) for every thread still there."""
    for pid in pids:
        try:
            tids = os.listdir(f'/proc/{pid}/task')
        except FileNotFoundError:
            continue
        for tid in tids:
            try:
                texts = []
                for name in names:
                    with open(f'/proc/{pid}/task/{tid}/{name}') as file:
                        texts.append(file.read())
            except (FileNotFoundError, ProcessLookupError):
                continue
            yield pid, tid, texts


def process_cpu_seconds(pids: list[int]) -> float:
    """user+sys of the processes, threads that have exited included (/proc/PID/stat: the kernel
    scales its ticks to the nanosecond runtime, so the sum is exact to a tick)."""
    total = 0
    for pid in pids:
        try:
            with open(f'/proc/{pid}/stat') as stat:
                fields = stat.read().rpartition(')')[2].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return total / os.sysconf('SC_CLK_TCK')


def switches(status: str, kind: str) -> int:
    return sum(int(line.split()[1]) for line in status.splitlines() if line.startswith(f'{kind}_ctxt_switches:'))


def label_of(pid: int, comm: str, peripheral: list[int]) -> str:
    """What a thread is: the peripheral side, this central, a kernel worker by the workqueue it
    last served (kworker-hci0), or its command."""
    if pid in peripheral:
        return 'peripheral'
    if pid == os.getpid():
        return 'central'
    if comm.startswith('kworker'):
        return 'kworker-' + comm.partition('-')[2] if '-' in comm else 'kworker'
    return re.sub(r'/\d+$', '', comm)


def guest_threads(peripheral: list[int]) -> dict[str, list]:
    """Every thread in the guest by TID: [label, PID:name, CPU seconds (schedstat), voluntary
    switches (each a sleep, so a wake-up after it), involuntary ones (preempted)]. A thread that
    exits between two marks takes its counts with it; the host compares thread by thread."""
    threads = {}
    pids = [int(entry) for entry in os.listdir('/proc') if entry.isdigit()]
    for pid, tid, (comm, stat, status) in thread_files(pids, 'comm', 'schedstat', 'status'):
        comm = comm.strip()
        threads[tid] = [label_of(pid, comm, peripheral), f'{pid}:{comm}', int(stat.split()[0]) / 1e9,
                        switches(status, 'voluntary'), switches(status, 'nonvoluntary')]
    return threads


def guest_cpu_seconds() -> tuple[float, float]:
    """The guest's busy CPU time, and of it the interrupt and softirq time, which /proc/stat counts
    apart from any thread: one read, so both are taken at the same moment."""
    with open('/proc/stat') as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    idle = fields[3] + fields[4]
    tick = os.sysconf('SC_CLK_TCK')
    return (sum(fields[:8]) - idle) / tick, (fields[5] + fields[6]) / tick


def resident_kib(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            with open(f'/proc/{pid}/status') as status:
                for line in status:
                    if line.startswith('VmRSS:'):
                        total += int(line.split()[1])
        except FileNotFoundError:
            continue
    return total


def perf_command(fifos: str, command: str) -> None:
    """Sends a command to perf record --control fifo:CTL,ACK and waits for its answer. Opening the
    FIFO waits for perf to have opened it: perf is sampling when this returns."""
    control, ack = fifos.split(',')
    with open(control, 'w') as ctl, open(ack) as answer:
        ctl.write(command + '\n')
        ctl.flush()
        answer.readline()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--hci', type=int, default=1, help='the central controller index')
    parser.add_argument('--peer', required=True)
    parser.add_argument('--peer-type', choices=['public', 'random'], default='random')
    parser.add_argument('--uuid', default='2A37')
    parser.add_argument('--count', type=int, default=300)
    parser.add_argument('--marks', default='', help='comma-separated counts to take figures at')
    parser.add_argument('--measure', default='', help='comma-separated PIDs of the peripheral side')
    parser.add_argument('--timeout', type=float, default=120)
    parser.add_argument('--perf-control', default='',
                        help="CTL,ACK: perf record's control FIFOs, enabled at the first mark and disabled at the last")
    args = parser.parse_args()

    started = time.monotonic()
    deadline = started + args.timeout
    result: dict = {}
    received = 0
    try:
        source = controller_address(args.hci)
        sock = connect(source, args.peer, BDADDR_LE_RANDOM if args.peer_type == 'random' else BDADDR_LE_PUBLIC,
                       args.timeout)
        client = Client(sock)
        value_handle, end = client.characteristic(int(args.uuid, 16))
        cccd = client.cccd(value_handle, end)
        client.request(struct.pack('<BHH', 0x12, cccd, 0x0001), {0x13})
        result.update(connected_after=round(time.monotonic() - started, 2), value_handle=value_handle)
        marks = sorted(int(m) for m in args.marks.split(',') if m)
        pids = [int(p) for p in args.measure.split(',') if p]
        figures = []
        while received < args.count:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            pdu = sock.recv(512)
            if not pdu:
                raise RuntimeError('the peripheral disconnected')
            if pdu[0] == 0x1D:
                sock.send(b'\x1e')
            answer_server_request(sock, pdu)
            if pdu[0] != 0x1B or struct.unpack('<H', pdu[1:3])[0] != value_handle:
                continue
            received += 1
            if marks and received == marks[0]:
                marks.pop(0)
                if args.perf_control and not figures:
                    perf_command(args.perf_control, 'enable')
                busy, interrupts = guest_cpu_seconds()
                figures.append({'count': received, 'time': time.monotonic(), 'cpu': process_cpu_seconds(pids),
                                'guest_busy': busy, 'guest_interrupts': interrupts,
                                'rss_kib': resident_kib(pids), 'guest_threads': guest_threads(pids)})
                if args.perf_control and not marks:
                    perf_command(args.perf_control, 'disable')
        result.update(received=received, figures=figures, ok=True)
    except (OSError, RuntimeError, socket.timeout) as error:
        result.update(received=received, ok=False, error=f'{type(error).__name__}: {error}')
    print(json.dumps(result), flush=True)
    return 0 if result.get('ok') else 1


if __name__ == '__main__':
    sys.exit(main())
