#!/usr/bin/python3
"""Boots the boot test's disk under QEMU (TCG) twice and judges what the guest reports.

Each boot is its own QEMU process on the same disk: the guest powers off when its checks are done
and is powered on again, as a Raspberry Pi is (a reboot inside one TCG process ran its second boot
two to three times slower, and its guest clock did not restart from zero). The guest's checks
(guest/check.sh) write lines to a virtio-serial port; this script reads them as they come, with
the host's monotonic time, and the serial console into console.log with the same time stamps.
Each boot has a deadline on the host; on a failure the guest's diagnostics and the console log's
tail are shown. Exit status 0 only when every expected check passed.

  boot_vm.py --kernel VMLINUZ --initrd INITRD --disk DISK_IMG --run-dir DIR [--boot-timeout S]
             [--arch x86_64|aarch64]

x86_64 (the default) is a q35 PC with the serial console on ttyS0; aarch64 is qemu-system-aarch64's
`virt` machine (-cpu max, TCG) with the console on its PL011 (ttyAMA0), the same virtio devices on
its PCIe bus, and the arm64 image's TMP102 check in both boots.
"""

import argparse
import os
import select
import signal
import socket
import subprocess
import sys
import time

PORT_NAME = "org.blesensor.boottest"
# What each boot must report as PASS; any FAIL, a missing check or a boot without DONE fails the run.
EXPECTED = {
    1: ["blesensord-active", "started-at-boot", "ready", "status-json", "status-needs-group", "status-default-socket", "advertising-seen",
        "file-modes", "device-policy"],
    2: ["blesensord-active", "started-at-boot", "ready", "status-json", "status-needs-group", "status-default-socket", "same-address",
        "advertising-seen", "config-error-failed", "config-error-journal", "damaged-state-failed", "read-only-state"],
}
# The arm64 image has a TMP102 on i2c-stub (guest/arm64/), read through the kernel's i2c-dev.
AARCH64_CHECKS = ["tmp102-i2c-stub"]
BOOT_NAMES = {1: "boot 1 (first)", 2: "boot 2 (again)"}


def expected(arch):
    """The checks each boot must pass on this architecture."""
    if arch == "x86_64":
        return EXPECTED
    # After the status checks, in the order check.sh runs them.
    after = "status-default-socket"
    return {number: checks[:checks.index(after) + 1] + AARCH64_CHECKS + checks[checks.index(after) + 1:]
            for number, checks in EXPECTED.items()}


def machine_options(args):
    """QEMU and its machine, console and root disk for the architecture."""
    if args.arch == "aarch64":
        # pauth-impdef: TCG's own pointer-authentication hash instead of QARMA (-cpu max otherwise
        # computes QARMA5 in software for every signed return address of Debian's arm64 code).
        return (["qemu-system-aarch64", "-machine", "virt", "-accel", "tcg,thread=multi",
                 "-cpu", "max,pauth-impdef=on"],
                "console=ttyAMA0",
                ["-drive", f"if=none,id=root,file={args.disk},format=raw,cache=unsafe",
                 "-device", "virtio-blk-pci,drive=root"])
    # cache=unsafe: QEMU still writes everything out when it exits; only the guest's flushes
    # (which would slow the boot) are skipped, and no host crash is part of the test.
    return (["qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max"],
            "console=ttyS0",
            ["-drive", f"if=virtio,file={args.disk},format=raw,cache=unsafe"])


def qemu_command(args, console_socket, results_socket):
    machine, console, disk = machine_options(args)
    return machine + [
        "-smp", "2", "-m", "1024", "-nodefaults", "-no-user-config", "-display", "none",
        # A guest that reboots or panics ends this boot instead of looping until the deadline.
        "-no-reboot",
        "-kernel", args.kernel, "-initrd", args.initrd,
        "-append", f"root=/dev/vda rw {console} panic=-1",
    ] + disk + [
        # wait=on: the guest does not start before this script is connected to both sockets (in
        # this order), so no line is lost and every line gets the host's time as it arrives.
        "-chardev", f"socket,id=console,path={console_socket},server=on,wait=on", "-serial", "chardev:console",
        "-device", "virtio-serial-pci,id=vser",
        "-chardev", f"socket,id=results,path={results_socket},server=on,wait=on",
        "-device", f"virtserialport,bus=vser.0,chardev=results,name={PORT_NAME}",
    ]


def connect(path, process, deadline):
    """The socket at path, once QEMU listens on it (bounded by deadline and by QEMU exiting)."""
    while True:
        if os.path.exists(path):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                client.connect(path)
                return client
            except OSError:
                client.close()
        if process.poll() is not None or time.monotonic() >= deadline:
            return None
        # QEMU creates its sockets within a second; a short poll keeps this simple and bounded.
        time.sleep(0.02)


class Lines:
    """Splits a byte stream into lines."""

    def __init__(self):
        self.buffer = b""

    def feed(self, chunk):
        self.buffer += chunk
        while b"\n" in self.buffer:
            raw, self.buffer = self.buffer.split(b"\n", 1)
            yield raw.decode(errors="replace").rstrip("\r")


class Console:
    """The serial console, kept for diagnosis with the host's time (seconds since this boot's QEMU
    started) before each line, and the host time at which the kernel started."""

    def __init__(self, file):
        self.file = file
        self.lines = Lines()
        self.kernel_start = None

    def feed(self, chunk, host_seconds):
        for text in self.lines.feed(chunk):
            self.file.write(f"{host_seconds:9.3f} {text}\n")
            # The kernel's first message, printed right after it was decompressed.
            if self.kernel_start is None and "] Linux version " in text:
                self.kernel_start = host_seconds

    def close(self):
        if self.lines.buffer:
            self.file.write(self.lines.buffer.decode(errors="replace") + "\n")


class Boot:
    """What the guest reported in one boot: checks, infos, diagnostics, times."""

    def __init__(self, number, checks):
        self.number = number
        self.checks = checks
        self.name = BOOT_NAMES[number]
        self.results = {}        # check -> (PASS|FAIL, detail)
        self.infos = {}          # key -> value
        self.logs = []
        self.clock = None        # (guest uptime, host seconds) of the CLOCK line
        self.kernel_start = None  # host seconds since QEMU started
        self.phase = None
        self.done = False
        self.error = None

    def line(self, text, host_seconds):
        kind, _, rest = text.partition(" ")
        if kind == "PHASE":
            self.phase = rest
        elif kind == "CLOCK":
            self.clock = (float(rest), host_seconds)
        elif kind in ("PASS", "FAIL"):
            check, _, detail = rest.partition(" ")
            self.results[check] = (kind, detail)
            print(f"  {self.name}: {kind} {check}: {detail}", flush=True)
        elif kind == "INFO":
            key, _, value = rest.partition(" ")
            self.infos[key] = value
        elif kind == "LOG":
            self.logs.append(rest)
        elif kind == "DONE":
            self.done = True

    def host_time(self, guest_seconds):
        """A guest monotonic time on the host's clock, through the CLOCK line (a few seconds away)."""
        if self.clock is None:
            return None
        uptime, host = self.clock
        return host - (uptime - guest_seconds)

    def failures(self):
        problems = [f"{self.name}: {self.error}"] if self.error else []
        if self.phase != str(self.number):
            problems.append(f"{self.name}: the guest ran phase {self.phase} of its checks")
        for check in self.checks:
            if check not in self.results:
                problems.append(f"{self.name}: {check} not reported")
        for check, (verdict, detail) in self.results.items():
            if verdict != "PASS":
                problems.append(f"{self.name}: {check}: {detail}")
        if not self.done:
            problems.append(f"{self.name} did not finish its checks")
        return problems


def run_boot(args, boot, console_file, results_file):
    """One QEMU process until the guest powers off; sets boot.error on a timeout or a QEMU failure."""
    console_socket = os.path.join(args.run_dir, "console.sock")
    results_socket = os.path.join(args.run_dir, "results.sock")
    for path in (console_socket, results_socket):
        if os.path.exists(path):
            os.unlink(path)
    console = Console(console_file)
    results = Lines()
    console_file.write(f"=== {boot.name} ===\n")
    results_file.write(f"=== {boot.name} ===\n")
    started = time.monotonic()
    deadline = started + args.boot_timeout
    process = subprocess.Popen(qemu_command(args, console_socket, results_socket),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sockets = {}
    try:
        for name, path in (("console", console_socket), ("results", results_socket)):
            client = connect(path, process, deadline)
            if client is None:
                output = process.stdout.read().decode(errors="replace") if process.poll() is not None else ""
                boot.error = f"QEMU did not open its {name} socket: {output.strip()}"
                return
            sockets[client] = name
        while sockets:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                boot.error = f"took longer than {args.boot_timeout:.0f} s (BOOT_TEST_TIMEOUT)"
                return
            readable, _, _ = select.select(list(sockets), [], [], remaining)
            now = time.monotonic() - started
            for client in readable:
                chunk = client.recv(65536)
                if not chunk:  # QEMU exited
                    del sockets[client]
                    client.close()
                elif sockets[client] == "console":
                    console.feed(chunk, now)
                else:
                    for text in results.feed(chunk):
                        results_file.write(f"{now:9.3f} {text}\n")
                        boot.line(text, now)
        try:
            status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            boot.error = "QEMU closed its sockets but did not exit"
            return
        if not boot.done:
            boot.error = f"QEMU exited (status {status}) before the guest finished its checks"
    finally:
        for client in sockets:
            client.close()
        console.close()
        boot.kernel_start = console.kernel_start
        if process.poll() is None:
            process.kill()
            process.wait()


def figures(boot):
    """Start to READY and to advertising: on the host's clock from QEMU's start and from the kernel's
    first message, and on the guest's monotonic clock (which starts with the kernel)."""
    lines = []
    if boot.kernel_start is not None:
        lines.append(f"kernel started {boot.kernel_start:.1f} s after QEMU started")
    for key, label in (("start_s", "blesensord started"), ("ready_s", "READY=1 (unit active)"),
                       ("advertising_seen_s", "advertising first seen from hci1")):
        if key not in boot.infos:
            continue
        guest = float(boot.infos[key])
        host = boot.host_time(guest)
        parts = []
        if host is not None:
            parts.append(f"{host:.1f} s after QEMU started")
            if boot.kernel_start is not None:
                parts.append(f"{host - boot.kernel_start:.1f} s after the kernel started")
        parts.append(f"guest monotonic {guest:.1f} s")
        lines.append(f"{label}: " + ", ".join(parts))
    for key in ("systemd_analyze", "critical_chain", "bluetoothd", "mgmt_controllers", "state_directory",
                "nobody_default_socket", "restarts"):
        if key in boot.infos:
            lines.append(f"{key}: {boot.infos[key]}")
    return [f"{boot.name}: {line}" for line in lines]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--initrd", required=True)
    parser.add_argument("--disk", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--boot-timeout", type=float, default=420,
                        help="seconds each boot may take, from QEMU's start to its exit (default 420)")
    parser.add_argument("--arch", choices=["x86_64", "aarch64"], default="x86_64",
                        help="the guest's architecture (default x86_64)")
    args = parser.parse_args()
    checks = expected(args.arch)
    # Interrupted or terminated, the QEMU process is killed on the way out (run_boot's finally),
    # also when started from a script that ignores SIGINT for its background jobs.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda received, frame: sys.exit(128 + received))

    os.makedirs(args.run_dir, exist_ok=True)
    console_log = os.path.join(args.run_dir, "console.log")
    boots = []
    started = time.monotonic()
    with open(console_log, "w") as console_file, \
            open(os.path.join(args.run_dir, "results.log"), "w") as results_file:
        for number in sorted(checks):
            boot = Boot(number, checks[number])
            boots.append(boot)
            run_boot(args, boot, console_file, results_file)
            if boot.error:
                break
    elapsed = time.monotonic() - started

    problems = [problem for boot in boots for problem in boot.failures()]
    problems += [f"{BOOT_NAMES[number]} did not run" for number in sorted(checks)[len(boots):]]
    print("boot test figures:")
    for boot in boots:
        for line in figures(boot):
            print(f"  {line}")
    print(f"  QEMU ran {elapsed:.1f} s for {len(boots)} boot(s)")
    if problems:
        for boot in boots:
            if boot.logs:
                print(f"guest diagnostics, {boot.name}:", file=sys.stderr)
                sys.stderr.writelines(f"  {text}\n" for text in boot.logs)
        with open(console_log, errors="replace") as handle:
            tail = handle.readlines()[-60:]
        print(f"console log tail ({console_log}):", file=sys.stderr)
        sys.stderr.writelines(f"  {line}" for line in tail)
        for problem in problems:
            print(f"FAIL {problem}", file=sys.stderr)
        print(f"boot test: FAILED ({len(problems)} problem(s))", file=sys.stderr)
        return 1
    passed = sum(len(names) for names in checks.values())
    print(f"boot test: all {passed} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
