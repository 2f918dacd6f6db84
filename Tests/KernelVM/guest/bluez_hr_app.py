#!/usr/bin/python3
"""A Heart Rate peripheral on BlueZ's bluetoothd, as a Raspberry Pi user writes one: a GATT
application and an advertisement registered over D-Bus, one Heart Rate Measurement (0x2A37,
notify) streaming the same 20-octet values as `heart-rate-peripheral --stream`.

--rate R            R values a second instead of a stream (the timer-driven case).

--mode acquire      BlueZ's AcquireNotify: bluetoothd hands the application a socket when a
                    central subscribes, and the application writes each value to it (blocking
                    writes, so the socket's buffer is the only queue on our side).
--mode properties   the example-gatt-server / bless way: each value is a PropertiesChanged
                    signal on D-Bus, one per millisecond timer tick (D-Bus gives no backpressure:
                    as fast as the main loop turns, bluetoothd and the emulated link starve and
                    the connection drops).

For Tests/KernelVM/bench-notify-bluez.sh (Debian's python3 with python3-dbus and python3-gi). Prints
"registered" once the application and the advertisement are registered.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import threading
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

BLUEZ = 'org.bluez'
OM = 'org.freedesktop.DBus.ObjectManager'
PROPS = 'org.freedesktop.DBus.Properties'
SERVICE_IFACE, CHRC_IFACE = 'org.bluez.GattService1', 'org.bluez.GattCharacteristic1'
AD_IFACE = 'org.bluez.LEAdvertisement1'


def stream_values() -> list[bytes]:
    """Flags 0x10 (RR present), bpm 60..99, nine RR-intervals of that rate: 20 octets."""
    values = []
    for bpm in range(60, 100):
        interval = 60_000 * 1024 // 1000 // bpm
        values.append(bytes([0x10, bpm]) + interval.to_bytes(2, 'little') * 9)
    return values


class Application(dbus.service.Object):
    def __init__(self, bus, characteristic) -> None:
        self.path = '/blesensor/bench'
        self.characteristic = characteristic
        super().__init__(bus, self.path)

    @dbus.service.method(OM, out_signature='a{oa{sa{sv}}}')
    def GetManagedObjects(self):
        c = self.characteristic
        return {
            c.service_path: {SERVICE_IFACE: {'UUID': '180d', 'Primary': dbus.Boolean(True)}},
            c.path: {CHRC_IFACE: c.properties()},
        }


class HeartRateMeasurement(dbus.service.Object):
    def __init__(self, bus, mode: str, rate: float) -> None:
        self.service_path = '/blesensor/bench/service0'
        self.path = self.service_path + '/char0'
        self.mode = mode
        self.rate = rate
        self.values = stream_values()
        self.sent = 0
        self.notifying = False
        super().__init__(bus, self.path)

    def properties(self):
        props = {'Service': dbus.ObjectPath(self.service_path), 'UUID': '2a37',
                 'Flags': dbus.Array(['notify'], signature='s')}
        if self.mode == 'acquire':
            props['NotifyAcquired'] = dbus.Boolean(False)
        return props

    @dbus.service.method(PROPS, in_signature='ss', out_signature='v')
    def Get(self, interface, name):
        return self.properties()[name]

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()

    @dbus.service.signal(PROPS, signature='sa{sv}as')
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    @dbus.service.method(CHRC_IFACE, in_signature='a{sv}', out_signature='ay')
    def ReadValue(self, options):
        return dbus.Array(self.values[0], signature='y')

    @dbus.service.method(CHRC_IFACE)
    def StartNotify(self):
        if self.notifying:
            return
        self.notifying = True
        GLib.timeout_add(max(1, round(1000 / self.rate)) if self.rate else 1, self.notify_once)

    @dbus.service.method(CHRC_IFACE)
    def StopNotify(self):
        self.notifying = False

    def notify_once(self) -> bool:
        if not self.notifying:
            return False
        value = self.values[self.sent % len(self.values)]
        self.PropertiesChanged(CHRC_IFACE, {'Value': dbus.Array(value, signature='y')}, [])
        self.sent += 1
        return True

    @dbus.service.method(CHRC_IFACE, in_signature='a{sv}', out_signature='hq')
    def AcquireNotify(self, options):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        mtu = int(options.get('mtu', 23))
        threading.Thread(target=self.write_values, args=(ours,), daemon=True).start()
        result = dbus.types.UnixFd(theirs.fileno())
        theirs.close()
        return result, dbus.UInt16(mtu)

    def write_values(self, sock: socket.socket) -> None:
        period = 1 / self.rate if self.rate else 0
        deadline = time.monotonic()
        try:
            while True:
                if period:
                    # Absolute deadlines: a late wake-up does not slow the rate down.
                    deadline += period
                    time.sleep(max(0.0, deadline - time.monotonic()))
                sock.send(self.values[self.sent % len(self.values)])
                self.sent += 1
        except OSError:
            sock.close()


class Advertisement(dbus.service.Object):
    def __init__(self, bus, name: str) -> None:
        self.path = '/blesensor/bench/advertisement0'
        self.name = name
        super().__init__(bus, self.path)

    def properties(self):
        return {'Type': 'peripheral', 'ServiceUUIDs': dbus.Array(['180d'], signature='s'),
                'LocalName': dbus.String(self.name)}

    @dbus.service.method(PROPS, in_signature='s', out_signature='a{sv}')
    def GetAll(self, interface):
        return self.properties()

    @dbus.service.method(AD_IFACE)
    def Release(self):
        pass


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument('--mode', choices=['acquire', 'properties'], required=True)
    parser.add_argument('--adapter', default='hci0')
    parser.add_argument('--name', default='bluez-hr')
    parser.add_argument('--rate', type=float, default=0, help='values per second; 0 streams')
    args = parser.parse_args()

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    adapter = bus.get_object(BLUEZ, f'/org/bluez/{args.adapter}')
    dbus.Interface(adapter, PROPS).Set('org.bluez.Adapter1', 'Powered', dbus.Boolean(True))
    characteristic = HeartRateMeasurement(bus, args.mode, args.rate)
    application = Application(bus, characteristic)
    advertisement = Advertisement(bus, args.name)
    loop = GLib.MainLoop()
    pending = {'left': 2}

    def registered(*_):
        pending['left'] -= 1
        if pending['left'] == 0:
            print('registered', flush=True)

    def failed(error):
        print(f'registration failed: {error}', file=sys.stderr, flush=True)
        loop.quit()

    dbus.Interface(adapter, 'org.bluez.GattManager1').RegisterApplication(
        application.path, {}, reply_handler=registered, error_handler=failed)
    dbus.Interface(adapter, 'org.bluez.LEAdvertisingManager1').RegisterAdvertisement(
        advertisement.path, {}, reply_handler=registered, error_handler=failed)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, 15, loop.quit)
    loop.run()
    os._exit(0)


if __name__ == '__main__':
    sys.exit(main())
