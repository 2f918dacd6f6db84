"""L2CAP fixed channels of blesensord, seen from Bumble's host stack on the central."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from bumble.smp import SMP_PAIRING_NOT_SUPPORTED_ERROR

from test_connection import start


async def test_pairing_is_refused_promptly_when_turned_off(harness, central, spawn_daemon):
    config = Path(__file__).parent / 'configs' / 'pairing-never.yaml'
    daemon, record = await start(harness, central, spawn_daemon, '--config', str(config))
    connection = await central.connect(record.address)
    await daemon.wait_for_log('central connected', timeout=5)
    with pytest.raises(Exception) as failure:
        # Without an answer Bumble would wait for its 30 s SMP timeout.
        await asyncio.wait_for(connection.pair(), 5)
    assert not isinstance(failure.value, asyncio.TimeoutError), 'no SMP answer from the peripheral'
    assert getattr(failure.value, 'error_code', None) == SMP_PAIRING_NOT_SUPPORTED_ERROR, repr(failure.value)
    # The link survives the refused pairing.
    assert connection.handle is not None
    await central.disconnect(connection)
    await daemon.wait_for_log('central disconnected', timeout=5)
