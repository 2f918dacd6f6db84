"""Pairing of `blesensor`'s central with Bumble's SMP (the peripheral's, an independent
implementation): LESC Just Works, Passkey (Bumble displays the fixed 123456, the CLI types
it with --passkey) and Numeric Comparison (--yes; the number the CLI shows is the one
Bumble compared), legacy Just Works and Passkey (--legacy); the encrypted characteristic
refused without pairing (the ATT error named), and a second run with the same
--state-dir re-encrypting from the bond with no second pairing on Bumble's side."""

from __future__ import annotations

import pytest

from harness.central_cli import CentralCli, error_line
from harness.peripheral import (
    ADDRESS, AUTHENTICATED, AUTHENTICATED_VALUE, ENCRYPTED, ENCRYPTED_VALUE, PASSKEY, Peripheral,
    uuid_text,
)
from harness.security import IO

BOUND = 20.0
SC_BIT = 0x08  # AuthReq, Core Vol 3, Part H, 3.5.1

# name: (peripheral IO capability, CLI options, LE Secure Connections, the peripheral's
# question (None: Just Works), the characteristic the resulting key may read)
METHODS = {
    'lesc-just-works': (IO.NO_OUTPUT_NO_INPUT, [], True, None, ENCRYPTED),
    'lesc-passkey': (IO.DISPLAY_OUTPUT_ONLY, ['--io-capability', 'keyboard-only', '--passkey', str(PASSKEY)],
                     True, 'generated', AUTHENTICATED),
    'lesc-numeric-comparison': (IO.DISPLAY_OUTPUT_AND_YES_NO_INPUT, ['--yes'], True, 'compare', AUTHENTICATED),
    'legacy-just-works': (IO.NO_OUTPUT_NO_INPUT, ['--legacy'], False, None, ENCRYPTED),
    'legacy-passkey': (IO.DISPLAY_OUTPUT_ONLY,
                       ['--legacy', '--io-capability', 'keyboard-only', '--passkey', str(PASSKEY)],
                       False, 'generated', AUTHENTICATED),
}
VALUES = {ENCRYPTED: ENCRYPTED_VALUE, AUTHENTICATED: AUTHENTICATED_VALUE}


def read_value(run) -> bytes:
    assert run.process.returncode == 0, run.describe()
    [line] = run.json_lines()
    return bytes.fromhex(line['value'])


@pytest.mark.parametrize('method', METHODS)
async def test_pairing_methods(central_cli: CentralCli, peripheral: Peripheral, method: str):
    io, options, sc, question, target = METHODS[method]
    delegate = peripheral.configure_pairing(io)
    run = await central_cli.run('read', ADDRESS, uuid_text(target), '--pair', *options, '--json', timeout=BOUND)
    assert read_value(run) == VALUES[target]
    assert len(peripheral.pairings) == 1 and peripheral.pairing_failures == []
    [request] = peripheral.pairing_requests()
    assert bool(request.auth_req & SC_BIT) == sc, request
    assert 'paired' in run.err, run.describe()
    if question is None:
        assert delegate.asked('generated') == [] and delegate.asked('compare') == []
    else:
        assert delegate.asked(question), delegate.calls
    if question == 'compare':
        number = delegate.asked('compare')[0][1]
        assert f'{number:06d}' in run.err, f'the CLI did not show {number:06d}\n{run.describe()}'


async def test_just_works_key_does_not_read_the_mitm_characteristic(central_cli: CentralCli, peripheral: Peripheral):
    peripheral.configure_pairing(IO.NO_OUTPUT_NO_INPUT)
    run = await central_cli.run('read', ADDRESS, uuid_text(AUTHENTICATED), '--pair', '--json', timeout=BOUND)
    assert run.process.returncode == 1, run.describe()
    line = error_line(run)
    assert 'Insufficient Authentication' in line and '0x05' in line, line


async def test_encrypted_read_fails_without_pairing(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('read', ADDRESS, uuid_text(ENCRYPTED), '--json', timeout=BOUND)
    assert run.process.returncode == 1, run.describe()
    line = error_line(run)
    assert 'Insufficient Authentication' in line and '0x05' in line, line
    assert run.lines == []
    assert peripheral.pairings == [] and peripheral.smp_received == []


async def test_second_run_re_encrypts_with_the_bond(central_cli: CentralCli, peripheral: Peripheral):
    peripheral.configure_pairing(IO.NO_OUTPUT_NO_INPUT)
    run = await central_cli.run('read', ADDRESS, uuid_text(ENCRYPTED), '--pair', '--json', timeout=BOUND)
    assert read_value(run) == ENCRYPTED_VALUE
    assert (central_cli.state_dir / 'bonds.sqlite').is_file()
    await peripheral.wait_disconnected(1)

    run = await central_cli.run('read', ADDRESS, uuid_text(ENCRYPTED), '--encrypt', '--json', timeout=BOUND)
    assert read_value(run) == ENCRYPTED_VALUE
    assert 're-encrypted with the stored bond' in run.err, run.describe()
    await peripheral.wait_for(lambda: len(peripheral.encryptions) == 2, 'the second encryption')
    assert len(peripheral.pairings) == 1, 'Bumble paired again'
    assert len(peripheral.pairing_requests()) == 1
    await peripheral.wait_disconnected(2)

    # --pair with a bond re-encrypts too.
    run = await central_cli.run('read', ADDRESS, uuid_text(ENCRYPTED), '--pair', '--json', timeout=BOUND)
    assert read_value(run) == ENCRYPTED_VALUE
    await peripheral.wait_for(lambda: len(peripheral.encryptions) == 3, 'the third encryption')
    assert len(peripheral.pairings) == 1, 'Bumble paired again'


async def test_encrypt_without_a_bond_fails(central_cli: CentralCli, peripheral: Peripheral):
    run = await central_cli.run('read', ADDRESS, uuid_text(ENCRYPTED), '--encrypt', '--json', timeout=BOUND)
    assert run.process.returncode == 1, run.describe()
    error_line(run)
    assert peripheral.pairings == [] and peripheral.encryptions == []
