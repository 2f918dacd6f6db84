#!/usr/bin/python3
"""Boots Debian's kernel under QEMU (TCG) with the host's root shared read-only over 9p, runs the
kernel tests' guest script and reports what it says.

The guest writes one line per event to a virtio-serial port: PASS NAME DETAIL, FAIL NAME DETAIL,
SKIP NAME REASON, LOG TEXT, DONE. This script prints them as they come, keeps the serial console
in console.log and kills QEMU when the host-side deadline passes, on a signal, or when it exits
early. Exit status 0 only when the guest said DONE and no check failed; the last line is
"kernel tests: N passed, M failed".

  kernel_vm.py --kernel VMLINUZ --initrd INITRD --run-dir DIR --timeout S --env KEY=VALUE ...
"""

import argparse
import os
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Boot"))
from boot_vm import Lines, connect  # noqa: E402  (the boot test's socket helpers)

PORT_NAME = "org.blesensor.kerneltests"


def qemu_command(args, results_socket, console_log):
    environment = " ".join(args.env)
    return [
        "qemu-system-x86_64", "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
        "-smp", str(args.smp), "-m", "1024", "-nodefaults", "-no-user-config", "-display", "none",
        # A panic (e.g. the guest script's shell, PID 1, exiting) ends QEMU instead of rebooting.
        "-no-reboot",
        "-kernel", args.kernel, "-initrd", args.initrd,
        "-append", f"console=ttyS0 panic=-1 loglevel=4 KVM_PORT={PORT_NAME} {environment}",
        "-serial", f"file:{console_log}",
        # The host's root, read-only. multidevs=remap: inode numbers from different host devices
        # stay distinct in the guest, else its cache can hand out a stale file for another's inode.
        "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
        "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
        "-device", "virtio-serial-pci,id=vser",
        # wait=on: the guest starts only once this script is connected, so no line is lost.
        "-chardev", f"socket,id=results,path={results_socket},server=on,wait=on",
        "-device", f"virtserialport,bus=vser.0,chardev=results,name={PORT_NAME}",
    ]


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = []
        self.skipped = 0
        self.done = False
        self.logs = []

    def line(self, text, seconds):
        kind, _, rest = text.partition(" ")
        if kind == "PASS":
            self.passed += 1
            print(f"{seconds:6.1f} s  PASS {rest}", flush=True)
        elif kind == "FAIL":
            self.failed.append(rest)
            print(f"{seconds:6.1f} s  FAIL {rest}", flush=True)
        elif kind == "SKIP":
            self.skipped += 1
            print(f"{seconds:6.1f} s  SKIP {rest}", flush=True)
        elif kind == "INFO":
            print(f"{seconds:6.1f} s  {rest}", flush=True)
        elif kind == "LOG":
            self.logs.append(rest)
        elif kind == "DONE":
            self.done = True
        else:
            self.logs.append(text)


def run(args, report):
    """One QEMU process until the guest powers off; returns an error text or None."""
    results_socket = os.path.join(args.run_dir, "results.sock")
    console_log = os.path.join(args.run_dir, "console.log")
    if os.path.exists(results_socket):
        os.unlink(results_socket)
    started = time.monotonic()
    deadline = started + args.timeout
    process = subprocess.Popen(qemu_command(args, results_socket, console_log),
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    client = None
    try:
        client = connect(results_socket, process, deadline)
        if client is None:
            output = process.stdout.read().decode(errors="replace") if process.poll() is not None else ""
            return f"QEMU did not open its results socket: {output.strip()}"
        lines = Lines()
        with open(os.path.join(args.run_dir, "results.log"), "w") as results_log:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return f"the guest took longer than {args.timeout:.0f} s (KERNEL_TESTS_TIMEOUT): killed"
                readable, _, _ = select.select([client], [], [], remaining)
                if not readable:
                    continue
                chunk = client.recv(65536)
                if not chunk:  # QEMU exited
                    break
                now = time.monotonic() - started
                for text in lines.feed(chunk):
                    results_log.write(f"{now:7.3f} {text}\n")
                    report.line(text, now)
        try:
            status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            return "QEMU closed its socket but did not exit"
        if not report.done:
            return f"QEMU exited (status {status}) before the guest finished"
        return None
    finally:
        if client is not None:
            client.close()
        if process.poll() is None:
            process.kill()
            process.wait()
        print(f"QEMU ran {time.monotonic() - started:.1f} s", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--initrd", required=True)
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--timeout", type=float, required=True, help="seconds from QEMU's start to its exit")
    parser.add_argument("--env", action="append", default=[], help="KEY=VALUE for the guest (no spaces)")
    parser.add_argument("--smp", type=int, default=2, help="the guest's vCPUs")
    args = parser.parse_args()
    for item in args.env:
        if " " in item or "=" not in item:
            parser.error(f"--env {item!r}: KEY=VALUE without spaces (it goes on the kernel command line)")
    # Interrupted or terminated, QEMU is killed on the way out (run's finally).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda received, frame: sys.exit(128 + received))

    os.makedirs(args.run_dir, exist_ok=True)
    report = Report()
    error = run(args, report)
    problems = list(report.failed) + ([error] if error else [])
    if problems:
        if report.logs:
            print("guest diagnostics:", file=sys.stderr)
            sys.stderr.writelines(f"  {text}\n" for text in report.logs[-80:])
        console_log = os.path.join(args.run_dir, "console.log")
        if error and os.path.exists(console_log):
            with open(console_log, errors="replace") as handle:
                tail = handle.readlines()[-40:]
            print("console log tail (console.log):", file=sys.stderr)
            sys.stderr.writelines(f"  {line}" for line in tail)
        if error:
            print(f"FAIL {error}", file=sys.stderr)
    skipped = f", {report.skipped} skipped" if report.skipped else ""
    print(f"kernel tests: {report.passed} passed, {len(problems)} failed{skipped}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
