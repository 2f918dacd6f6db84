// One import for an application that scans, connects and reads or subscribes, as CoreBluetooth is
// one import: the central facade and the types its API takes and returns (UUIDs and addresses,
// discovered services and characteristics, the SIG value decoders, links, transports, pairing).
@_exported import ATT
@_exported import BLECore
@_exported import Central
@_exported import GAP
@_exported import GATT
@_exported import GATTClient
@_exported import HCI
@_exported import HCITransports
@_exported import Host
@_exported import SIGProfiles
@_exported import SMP
