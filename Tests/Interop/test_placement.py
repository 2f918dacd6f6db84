"""The Python placement rules against hand-written byte vectors, so the
expected bytes the daemon tests use are themselves checked."""

from harness.placement import place, truncate_utf8

NUS = '6E400001-B5A3-F393-E0A9-E50E24DCCA9E'
NUS_LE = bytes.fromhex('9ECADC240EE5A9E093F3A3B50100406E')
OTHER = '12345678-1234-5678-1234-56789ABCDEF0'
OTHER_LE = bytes.fromhex('F0DEBC9A785634127856341278563412')


def test_short_name_in_advertising_data():
    p = place('Sensor', [])
    assert p.advertising_data == bytes.fromhex('020106 0709') + b'Sensor'.replace(b' ', b'')
    assert p.scan_response == b''
    assert p.did_not_fit == []


def test_name_moves_to_scan_response_after_uuids():
    p = place('Environment-Sensor-12', ['180F', '181A'])
    assert p.advertising_data == bytes.fromhex('020106 0503 0F18 1A18'.replace(' ', ''))
    assert p.scan_response == bytes([22, 0x09]) + b'Environment-Sensor-12'


def test_sixteen_and_one_128_bit():
    p = place('Multi', ['180F', '181A', '180A', NUS])
    assert p.advertising_data == (
        bytes.fromhex('020106 0703 0F18 1A18 0A18'.replace(' ', '')) + bytes([17, 0x07]) + NUS_LE
    )
    assert len(p.advertising_data) == 29
    assert p.scan_response == bytes([6, 0x09]) + b'Multi'


def test_second_128_bit_overflows_into_scan_response_after_name():
    p = place('Ovf', ['180F', '181A', '180A', NUS, OTHER])
    assert p.advertising_data == (
        bytes.fromhex('020106 0703 0F18 1A18 0A18'.replace(' ', '')) + bytes([17, 0x06]) + NUS_LE
    )
    assert p.scan_response == bytes([4, 0x09]) + b'Ovf' + bytes([17, 0x06]) + OTHER_LE
    assert p.did_not_fit == []


def test_name_longer_than_29_bytes_is_shortened():
    name = 'blesensor-greenhouse-north-wing-7'
    p = place(name, [])
    assert p.advertising_data == bytes.fromhex('020106')
    assert p.scan_response == bytes([30, 0x08]) + name.encode()[:29]


def test_shortened_name_cut_at_character_boundary():
    name = 'capteur-température-serre-nord-Ω'
    encoded = name.encode()
    assert len(encoded) > 29
    cut = truncate_utf8(name, 29)
    assert cut == encoded[:29] or cut == encoded[:28]
    cut.decode('utf-8')  # must not raise
    assert truncate_utf8('ééééééééééééééé', 29) == 'é'.encode() * 14


def test_uuids_that_fit_nowhere_are_reported():
    many = [f'{0x1800 + i:04X}' for i in range(30)]
    p = place('x' * 40, many)
    # 13 fit after the flags (2 + 26 = 28); the shortened name fills the scan response.
    assert p.advertising_data[3:5] == bytes([27, 0x02])
    assert len(p.advertising_data) == 31
    assert p.scan_response[1] == 0x08 and len(p.scan_response) == 31
    assert p.did_not_fit == many[13:]


def test_tx_power_follows_the_name_with_its_sign():
    p = place('Sensor', ['180D'], tx_power=-4)
    assert p.advertising_data == bytes.fromhex('020106 03030D18 0709'.replace(' ', '')) + b'Sensor' + bytes([2, 0x0A, 0xFC])
    assert p.scan_response == b''


def test_tx_power_goes_to_the_scan_response_when_the_advertising_data_is_full():
    p = place('Multi', ['180F', '181A', '180A', NUS], tx_power=0)
    assert len(p.advertising_data) == 29
    assert p.scan_response == bytes([6, 0x09]) + b'Multi' + bytes([2, 0x0A, 0x00])


def test_tx_power_is_left_out_when_a_shortened_name_fills_the_scan_response():
    p = place('blesensor-greenhouse-north-wing-7', ['180F', '181A', '180A', NUS], tx_power=4)
    assert 0x0A not in (p.advertising_data[1], p.scan_response[1])
    assert len(p.scan_response) == 31


def test_tx_power_never_pushes_a_service_uuid_out():
    # The scan response holds the name and exactly one overflowing 128-bit UUID (31 bytes).
    p = place('Ovfl-name-a', ['180F', '181A', '180A', NUS, OTHER], tx_power=0)
    assert p.did_not_fit == []
    assert p.scan_response == bytes([12, 0x09]) + b'Ovfl-name-a' + bytes([17, 0x06]) + OTHER_LE
