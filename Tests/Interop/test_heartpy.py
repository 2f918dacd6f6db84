"""Our beat detector against HeartPy's peak detector on HeartPy's real PPG recordings.

Figures measured with bench_heartpy.py (BeatDetector as of this commit):

    recording  length  rate     BPM ours  BPM hp  found            RR pairs  |dRR| ms
    data.csv    25 s   100 Hz    164.64   58.90    13/24   54 %        0        -
    data2.csv  128 s   117 Hz     54.07   62.38    57/84   68 %       33      3.6
    data3.csv  682 s   100.4 Hz   97.18   97.33  1051/1073 98 %      997      6.0

data3 (11 min) agrees: the thresholds below leave a margin of a few points over those figures and
would catch a regression (a missed beat in 20, a 1.5 BPM bias, RR timing off by 10 ms). data.csv and
data2 do not agree, and that is a known weakness, marked strict xfail so a fix shows up: data.csv has
a diastolic (reflected) wave about half as high as systole 0.35 s after it and a third hump 0.75 s
after it, and the detector's threshold (45 % of the recent peak level) lets them through, locking the
rhythm at three times the rate; in data2 the detector skips beats after the noisy first 45 s (HeartPy
rejects that part). Attempts to fix it (a level rule for peaks soon after a beat, a longer
confirmation window) fixed data.csv but broke the synthetic 50 BPM noisy case or locked data2/data3
at half the rate, so they were not kept.
"""

from __future__ import annotations

import pytest

from bench_heartpy import compare, recordings
from harness.central_cli import blesensor_path

import os

RECORDINGS = {recording.name: recording for recording in recordings()}

KNOWN_DISAGREEMENT = pytest.mark.xfail(strict=True, reason='secondary waves / noisy start: see the module docstring')


def _require_cli() -> None:
    path = blesensor_path()
    if not os.access(path, os.X_OK):
        pytest.fail(f'{path} is not built (swift build --product blesensor, or set BLESENSOR)')


@pytest.mark.parametrize('name', [
    'data3.csv',
    pytest.param('data.csv', marks=KNOWN_DISAGREEMENT),
    pytest.param('data2.csv', marks=KNOWN_DISAGREEMENT),
])
def test_beats_agree_with_heartpy(name: str) -> None:
    _require_cli()
    agreement = compare(RECORDINGS[name])
    assert agreement.found_percent >= 95, agreement
    assert abs(agreement.bpm_ours - agreement.bpm_heartpy) <= 1.5, agreement
    assert agreement.rr_compared >= 0.85 * agreement.reference_beats, agreement
    assert agreement.rr_mean_abs_ms <= 10, agreement
