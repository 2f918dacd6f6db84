"""The soak's short version (bench_soak.py --minutes 0.5): half a minute of four centrals pairing,
re-encrypting, subscribing and leaving under the cyw43455 profile's paced completions, with one
round of every fault (a lost command reply, a sensor that fails and recovers, a central that stops
acknowledging for a while and one that stops for good). The benchmark checks its invariants (no
restart, no controller reset, no flow-control violation, every fault handled, every central served,
one log line per lost reply) and exits 1 when one breaks; the 30-minute run is for the closing note.

Its bounds on how soon the daemon advertises again and how long a central may wait are wall-clock
allowances of a benchmark; here they are widened so that a loaded machine cannot fail it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SOAK = Path(__file__).parent / 'bench_soak.py'


def test_the_short_soak_keeps_every_invariant(blesensord):
    # Not pytest's tmp_path: under pytest-xdist it is deep enough that the soak's control socket
    # path passes the 107 bytes a Unix socket address holds.
    work = tempfile.mkdtemp(prefix='soak-', dir='/tmp')
    try:
        result = subprocess.run(
            [sys.executable, str(SOAK), '--minutes', '0.5', '--readvertise-within', '30', '--max-unserved', '120'],
            env={'BLESENSORD': blesensord, 'PATH': '/usr/bin:/bin', 'TMPDIR': work},
            capture_output=True, text=True, timeout=600,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert 'all invariants held' in result.stdout, report
    assert 'flow control: violations 0' in result.stdout, report
