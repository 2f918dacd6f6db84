"""Demo mode (`--board simulated` with no Bluetooth hardware, what scripts/demo.sh runs): the
built-in demo central pairs when a characteristic needs encryption, and after a restart of the
daemon re-encrypts with the bond both halves kept, instead of pairing again (which the daemon
refuses, as it must for a stranger claiming a bonded phone's identity)."""

from __future__ import annotations

import signal

from harness.daemon import spawn

CONFIG = """\
board: simulated
sensors:
  - name: body
    driver: tmp102
    poll-interval: 1s
    publish: [temperature-measurement]
    simulation: {{celsius: 36.8}}
security:
  pairing: window
  window-at-start: 5m
  require-encryption: [2A1C]
paths:
  control-socket: {socket}
  state-directory: {state}
"""


async def run_until(blesensord: str, config: str, text: str) -> list[str]:
    daemon = await spawn([blesensord, '--config', config, '--transport', 'virtual'])
    try:
        await daemon.wait_for_log(text, timeout=20)
        await daemon.wait_for_log('demo central: 2A1C Temperature Measurement: ', timeout=20)
        daemon.send_signal(signal.SIGTERM)
        assert await daemon.wait_exit(10) == 0, daemon.log
        return daemon.lines
    finally:
        await daemon.kill()


async def test_demo_central_reencrypts_after_a_daemon_restart(blesensord, tmp_path):
    config = tmp_path / 'demo.yaml'
    config.write_text(CONFIG.format(socket=tmp_path / 'control.sock', state=tmp_path / 'state'))

    first = await run_until(blesensord, str(config), 'demo central: paired (')
    assert (tmp_path / 'state' / 'demo-central-bonds.sqlite').exists()

    second = await run_until(blesensord, str(config), 'demo central: encrypted with the stored bond (16-octet key)')
    log = '\n'.join(second)
    assert 'demo central: paired' not in log and 'pairing failed' not in log, log
    assert 'refus' not in log, log
    assert any('demo central: read' in line for line in first)
