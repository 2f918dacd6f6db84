import BLECore
import HCI

/// How the central scans. Interval and window are kept in controller units (0.625 ms); the
/// `Duration` initialiser rounds to the nearest unit. Validation happens in `startScanning`.
public struct ScanParameters: Sendable, Equatable {
    /// Active scanning sends SCAN_REQ and so also receives scan responses.
    public var active: Bool
    public var intervalUnits: UInt16
    public var windowUnits: UInt16
    /// Host-side filter: an address is reported again only when its advertising data, scan
    /// response or kind changed.
    public var filterDuplicates: Bool
    /// The controller's own duplicate filter (LE Set Scan Enable). It also hides changed data on
    /// many controllers; prefer `filterDuplicates`.
    public var controllerFiltersDuplicates: Bool
    public var ownAddressType: AddressType

    public init(active: Bool = true, interval: Duration = .milliseconds(100), window: Duration = .milliseconds(50),
                filterDuplicates: Bool = false, controllerFiltersDuplicates: Bool = false,
                ownAddressType: AddressType = .publicDevice) {
        self.init(active: active, intervalUnits: Self.units(interval), windowUnits: Self.units(window),
                  filterDuplicates: filterDuplicates, controllerFiltersDuplicates: controllerFiltersDuplicates,
                  ownAddressType: ownAddressType)
    }

    public init(active: Bool, intervalUnits: UInt16, windowUnits: UInt16, filterDuplicates: Bool = false,
                controllerFiltersDuplicates: Bool = false, ownAddressType: AddressType = .publicDevice) {
        self.active = active
        self.intervalUnits = intervalUnits
        self.windowUnits = windowUnits
        self.filterDuplicates = filterDuplicates
        self.controllerFiltersDuplicates = controllerFiltersDuplicates
        self.ownAddressType = ownAddressType
    }

    public var interval: Duration { .microseconds(Int(intervalUnits) * 625) }
    public var window: Duration { .microseconds(Int(windowUnits) * 625) }

    /// Both in 2.5 ms … 10.24 s and the window no longer than the interval (Vol 4 Part E 7.8.10).
    func validate() throws(GAPError) {
        let range: ClosedRange<UInt16> = 0x0004...0x4000
        guard range.contains(intervalUnits) else {
            throw .invalidScanParameters("interval \(interval) is outside 2.5 ms … 10.24 s")
        }
        guard range.contains(windowUnits) else {
            throw .invalidScanParameters("window \(window) is outside 2.5 ms … 10.24 s")
        }
        guard windowUnits <= intervalUnits else {
            throw .invalidScanParameters("window \(window) is longer than the interval \(interval)")
        }
    }

    var command: HCILESetScanParameters {
        HCILESetScanParameters(active: active, interval: intervalUnits, window: windowUnits, ownAddressType: ownAddressType)
    }

    /// Out-of-range durations saturate, so validation reports them instead of wrapping.
    static func units(_ duration: Duration) -> UInt16 {
        let units = (duration.milliseconds / 0.625).rounded()
        guard units.isFinite, units > 0 else { return 0 }
        return units >= Double(UInt16.max) ? .max : UInt16(units)
    }
}
