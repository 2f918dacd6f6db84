// One import for an application that serves GATT, as CoreBluetooth is one import: the peripheral
// facade and the types its API takes and returns (services and characteristics, UUIDs and
// addresses, ATT error codes, links, the transports that reach a controller, the stack on it,
// advertising).
@_exported import ATT
@_exported import BLECore
@_exported import GAP
@_exported import GATT
@_exported import HCI
@_exported import HCITransports
@_exported import Host
@_exported import Peripheral
@_exported import SMP
