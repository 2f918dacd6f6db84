#!/usr/bin/env python3
"""Beat detector vs. HeartPy on real PPG recordings. Not a test (test_heartpy.py asserts on it).

HeartPy (pinned in requirements.txt) ships three finger PPG recordings in heartpy/data/ and its own
peak detector, an independent reference. Each recording goes through `blesensor sensor analyze-ppg`
(our BeatDetector) and through `heartpy.process`; per recording this prints BPM from both, the share
of HeartPy's accepted beats we also found (within TOLERANCE_S after removing the constant filter
delay), and the mean absolute difference of the RR-intervals both accepted.

    Tests/Interop/.venv/bin/python Tests/Interop/bench_heartpy.py   # BLESENSOR=... to pick the binary
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import heartpy
import numpy

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness.central_cli import blesensor_path  # noqa: E402

DATA = os.path.join(os.path.dirname(heartpy.__file__), 'data')
# A beat counts as found when ours is this close to HeartPy's (after removing the median offset):
# well under half the shortest RR (273 ms at 220 BPM), above both detectors' timing jitter.
TOLERANCE_S = 0.1


@dataclass
class Recording:
    name: str
    samples: numpy.ndarray
    rate: float


def recordings() -> list[Recording]:
    """The three recordings with the sample rates HeartPy's own examples derive for them."""
    data = heartpy.get_data(os.path.join(DATA, 'data.csv'))
    data2 = os.path.join(DATA, 'data2.csv')
    data3 = os.path.join(DATA, 'data3.csv')
    rate2 = heartpy.get_samplerate_mstimer(heartpy.get_data(data2, column_name='timer'))
    rate3 = heartpy.get_samplerate_datetime(heartpy.get_data(data3, column_name='datetime'),
                                            timeformat='%Y-%m-%d %H:%M:%S.%f')
    return [Recording('data.csv', data, 100.0),
            Recording('data2.csv', heartpy.get_data(data2, column_name='hr'), rate2),
            Recording('data3.csv', heartpy.get_data(data3, column_name='hr'), rate3)]


def our_beats(recording: Recording) -> list[tuple[float, float | None]]:
    """(time s, RR ms or None) per beat from `blesensor sensor analyze-ppg`."""
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as file:
        file.write('\n'.join(repr(float(v)) for v in recording.samples))
        path = file.name
    try:
        done = subprocess.run([blesensor_path(), 'sensor', 'analyze-ppg', '--rate', repr(float(recording.rate)),
                               '--pulse-up', path], capture_output=True, text=True, timeout=120, check=False)
    finally:
        os.unlink(path)
    if done.returncode != 0:
        raise RuntimeError(f'analyze-ppg failed ({done.returncode}): {done.stderr.strip()}')
    beats = []
    for line in done.stdout.splitlines():
        if line.startswith('#') or not line.strip():
            continue
        time, rr = line.split()
        beats.append((float(time), None if rr == '-' else float(rr)))
    return beats


@dataclass
class Agreement:
    name: str
    seconds: float
    rate: float
    bpm_ours: float
    bpm_heartpy: float
    reference_beats: int
    found: int
    rr_compared: int
    rr_mean_abs_ms: float
    offset_ms: float

    @property
    def found_percent(self) -> float:
        return 100 * self.found / self.reference_beats if self.reference_beats else 0.0


def compare(recording: Recording) -> Agreement:
    working, measures = heartpy.process(recording.samples, recording.rate)
    removed = {int(i) for i in working['removed_beats']}
    peaks = [int(p) for p in working['peaklist']]
    reference = [(p / recording.rate, p not in removed) for p in peaks]
    accepted = [t for t, ok in reference if ok]
    ours = our_beats(recording)
    times = numpy.array([t for t, _ in ours])
    # Our beats are timed on the filtered wave: a constant delay, removed before matching.
    offsets = [t - accepted[int(numpy.argmin([abs(t - a) for a in accepted]))] for t in times]
    offset = statistics.median([o for o in offsets if abs(o) < 0.3] or [0.0])
    match: dict[int, int] = {}
    for index, (t, ok) in enumerate(reference):
        if not ok or len(times) == 0:
            continue
        nearest = int(numpy.argmin(numpy.abs(times - offset - t)))
        if abs(times[nearest] - offset - t) <= TOLERANCE_S:
            match[index] = nearest
    differences = []
    for index in range(len(reference) - 1):
        a, b = match.get(index), match.get(index + 1)
        if a is None or b is None or b != a + 1 or ours[b][1] is None:
            continue
        differences.append(abs(ours[b][1] - (reference[index + 1][0] - reference[index][0]) * 1000))
    intervals = [rr for _, rr in ours if rr is not None]
    return Agreement(
        name=recording.name, seconds=len(recording.samples) / recording.rate, rate=recording.rate,
        bpm_ours=60_000 / statistics.mean(intervals) if intervals else float('nan'),
        bpm_heartpy=float(measures['bpm']), reference_beats=len(accepted), found=len(match),
        rr_compared=len(differences), rr_mean_abs_ms=statistics.mean(differences) if differences else float('nan'),
        offset_ms=offset * 1000)


def main() -> int:
    print(f'{"recording":<10} {"length":>7} {"rate":>7} {"BPM ours":>9} {"BPM hp":>8} {"found":>12} '
          f'{"RR pairs":>8} {"|dRR| ms":>9} {"delay ms":>9}')
    for recording in recordings():
        a = compare(recording)
        print(f'{a.name:<10} {a.seconds:>6.0f}s {a.rate:>6.1f}Hz {a.bpm_ours:>9.2f} {a.bpm_heartpy:>8.2f} '
              f'{a.found:>4}/{a.reference_beats:<4} {a.found_percent:>3.0f}% {a.rr_compared:>5} '
              f'{a.rr_mean_abs_ms:>9.1f} {a.offset_ms:>9.0f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
