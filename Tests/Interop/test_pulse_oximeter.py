"""Pulse Oximeter Service 0x1822 over the air: blesensord on the simulated board with a MAX30102
publishing plx-continuous-measurement; a Bumble central reads PLX Features 2A60 and subscribes to
PLX Continuous Measurement 2A5F. Values decoded by the harness from the PLX field tables, independently."""

from __future__ import annotations

import math
import struct

from bumble.core import UUID

from harness.measurements import plx_continuous_measurement
from test_sensor_bridge import connect_and_discover, subscribe

U = UUID.from_16_bits
PULSE_OXIMETER, HEART_RATE = U(0x1822), U(0x180D)
PLX_CONTINUOUS, PLX_FEATURES, PLX_SPOT_CHECK = U(0x2A5F), U(0x2A60), U(0x2A5E)

# The simulated finger's red/IR ratio is 0.5: −45.060·0.25 + 30.354·0.5 + 94.845 = 98.757 %.
EXPECTED_SPO2 = 98.757

CONFIG = """\
board: simulated
sensors:
  - name: finger
    driver: max30102
    poll-interval: 250ms
    publish: [heart-rate-measurement, plx-continuous-measurement]
    simulation: {bpm: 66}
"""


async def test_a_central_reads_plx_features_and_gets_the_simulated_saturation(harness, central, spawn_daemon, tmp_path):
    path = tmp_path / 'oximeter.yaml'
    path.write_text(CONFIG)
    daemon, session = await connect_and_discover(harness, central, spawn_daemon, 'bridge-plx', '--config', str(path))
    services = {s.uuid: s for s in session.peer.services}
    assert PULSE_OXIMETER in services and HEART_RATE in services, sorted(str(u) for u in services)
    found = {c.uuid for c in services[PULSE_OXIMETER].characteristics}
    assert found == {PLX_CONTINUOUS, PLX_FEATURES}, [str(u) for u in found]
    c = session.characteristic
    assert c(PLX_CONTINUOUS).properties & (0x02 | 0x10) == 0x10  # notify, not readable
    assert c(PLX_FEATURES).properties & 0x02  # read

    features = await session.read(c(PLX_FEATURES))
    supported = struct.unpack('<H', features[0:2])[0]
    # Measurement Status (bit 0), Device and Sensor Status (bit 1), Pulse Amplitude Index (bit 6).
    assert supported == 0x0043, features.hex()
    assert len(features) == 7, features.hex()
    measurement_support = struct.unpack('<H', features[2:4])[0]
    device_support = int.from_bytes(features[4:7], 'little')
    assert measurement_support & 0x001F == 0 and device_support & 0xFF0000 == 0, features.hex()  # no reserved bits

    values = await subscribe(session, daemon, c(PLX_CONTINUOUS), '2A5F notify')
    await session.tap.wait_for(
        lambda: any(not math.isnan(plx_continuous_measurement(v)['spo2']) for _, v in values.values), 20,
        'a PLX Continuous Measurement with a SpO2 value')
    decoded = [plx_continuous_measurement(v) for _, v in values.values]
    print('2A5F', [v.hex() for _, v in values.values][-5:])
    for item in decoded:
        # Every status bit sent is one PLX Features announced.
        assert item['status'] & ~measurement_support == 0, item
        assert item['device'] & ~device_support == 0, item
        if math.isnan(item['spo2']):
            assert item['status'] & 0x2000, item  # Measurement Unavailable
    numeric = [item for item in decoded if not math.isnan(item['spo2'])]
    for item in numeric:
        assert abs(item['spo2'] - EXPECTED_SPO2) <= 0.3, item
        assert abs(item['pr'] - 66) <= 3, item
        assert item['status'] == 0 and item['device'] == 0, item
        assert 0.5 <= item['pai'] <= 3, item
    assert daemon.process.returncode is None
