import BLECore

/// One entry of LE Advertising Report (Vol 4 Part E 7.7.65.2).
public struct LEAdvertisingReport: Sendable, Equatable {
    public enum EventType: UInt8, Sendable {
        case advInd = 0x00
        case advDirectInd = 0x01
        case advScanInd = 0x02
        case advNonconnInd = 0x03
        case scanResponse = 0x04
    }

    public var eventType: EventType
    public var address: DeviceAddress
    public var data: [UInt8]
    /// dBm; 127 means not available.
    public var rssi: Int8

    public init(eventType: EventType, address: DeviceAddress, data: [UInt8], rssi: Int8) {
        self.eventType = eventType
        self.address = address
        self.data = data
        self.rssi = rssi
    }
}

/// LE Advertising Report: entries laid out one after another, as controllers send them.
public struct LEAdvertisingReportEvent: HCIParameters {
    public var reports: [LEAdvertisingReport]

    public init(reports: [LEAdvertisingReport]) { self.reports = reports }

    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let count = try reader.decoding("LE Advertising Report") { r throws(ByteReaderError) in try r.readUInt8() }
        var reports: [LEAdvertisingReport] = []
        for _ in 0..<count {
            let f = try reader.decoding("LE Advertising Report entry") { r throws(ByteReaderError) in
                let type = try r.readUInt8(), addressType = try r.readUInt8(), address = try BluetoothAddress(reading: &r)
                let length = Int(try r.readUInt8())
                return (type, addressType, address, try r.readBytes(length), try r.readInt8())
            }
            guard let type = LEAdvertisingReport.EventType(rawValue: f.0) else {
                throw .invalidValue("LE Advertising Report", field: "event type", value: UInt64(f.0))
            }
            guard let addressType = AddressType(rawValue: f.1) else {
                throw .invalidValue("LE Advertising Report", field: "address type", value: UInt64(f.1))
            }
            guard f.3.count <= LELegacyAdvertisingPayload.maximumLength else {
                throw .invalidValue("LE Advertising Report", field: "data length", value: UInt64(f.3.count))
            }
            reports.append(LEAdvertisingReport(eventType: type, address: DeviceAddress(f.2, type: addressType), data: f.3, rssi: f.4))
        }
        self.reports = reports
    }

    public func encode(into writer: inout ByteWriter) {
        writer.append(UInt8(truncatingIfNeeded: reports.count))
        for report in reports {
            writer.append(report.eventType.rawValue)
            writer.append(report.address.type.rawValue)
            report.address.address.write(to: &writer)
            writer.append(UInt8(truncatingIfNeeded: report.data.count))
            writer.append(contentsOf: report.data)
            writer.append(report.rssi)
        }
    }
}
