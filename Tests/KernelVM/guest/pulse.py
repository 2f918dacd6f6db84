#!/usr/bin/python3
"""Pulses a gpio-sim input line through its sysfs `pull` attribute: a rising edge (pull-up) at
start + k * PERIOD, each WIDTH seconds long, until the file STOP exists. Prints, for each rising
edge, CLOCK_MONOTONIC in ns just before and just after the write: gpio-sim raises the edge event
(and the kernel stamps it) inside that write, so the true edge time lies between the two.

  pulse.py PULL_PATH PERIOD WIDTH STOP
"""

import os
import sys
import time


def write(path, text):
    with open(path, "w") as attribute:
        attribute.write(text)


def main():
    path, period, width, stop = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    start = time.monotonic()
    k = 0
    while not os.path.exists(stop):
        # Absolute times: a late pulse does not delay the ones after it.
        delay = start + k * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        before = time.monotonic_ns()
        write(path, "pull-up")
        after = time.monotonic_ns()
        print(before, after, flush=True)
        time.sleep(width)
        write(path, "pull-down")
        k += 1


if __name__ == "__main__":
    main()
