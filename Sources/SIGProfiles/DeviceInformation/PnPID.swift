import BLECore

/// PnP ID 0x2A50 (Device Information Service 3.9), 7 bytes: vendor ID source u8, vendor ID u16,
/// product ID u16, product version u16 (0xJJMN = JJ.M.N).
public struct PnPID: Hashable, Sendable {
    public static let uuid: UInt16 = 0x2A50
    public static let byteCount = 7

    public enum VendorIDSource: UInt8, Hashable, Sendable {
        /// Vendor ID from the Bluetooth SIG company identifiers.
        case bluetoothSIG = 0x01
        /// Vendor ID assigned by the USB Implementer's Forum.
        case usbImplementersForum = 0x02
    }

    public var vendorIDSource: VendorIDSource
    public var vendorID: UInt16
    public var productID: UInt16
    public var productVersion: UInt16

    public init(vendorIDSource: VendorIDSource, vendorID: UInt16, productID: UInt16, productVersion: UInt16) {
        self.vendorIDSource = vendorIDSource
        self.vendorID = vendorID
        self.productID = productID
        self.productVersion = productVersion
    }

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, Self.byteCount, value: "PnP ID")
        var reader = FieldReader(bytes)
        let source = try reader.uint8("vendor ID source")
        guard let vendorIDSource = VendorIDSource(rawValue: source) else {
            throw .reservedValue(field: "vendor ID source", value: hex(UInt64(source), digits: 2),
                                 allowed: "0x01 (Bluetooth SIG), 0x02 (USB Implementer's Forum)")
        }
        self.vendorIDSource = vendorIDSource
        vendorID = try reader.uint16("vendor ID")
        productID = try reader.uint16("product ID")
        productVersion = try reader.uint16("product version")
    }

    public var encoded: [UInt8] {
        var writer = ByteWriter(capacity: Self.byteCount)
        writer.append(vendorIDSource.rawValue)
        writer.append(vendorID)
        writer.append(productID)
        writer.append(productVersion)
        return writer.bytes
    }

    /// "JJ.M.N" from the binary-coded 0xJJMN.
    public var versionText: String {
        "\(productVersion >> 8).\((productVersion >> 4) & 0x0F).\(productVersion & 0x0F)"
    }
}

extension PnPID: DescribableValue {
    public var fields: [DescribedField] {
        let sourceName = vendorIDSource == .bluetoothSIG ? "Bluetooth SIG" : "USB Implementer's Forum"
        return [
            DescribedField("vendor_id_source", "Vendor ID source", "\(sourceName) (\(vendorIDSource.rawValue))",
                           .string(vendorIDSource == .bluetoothSIG ? "bluetooth_sig" : "usb_if")),
            DescribedField("vendor_id", "Vendor ID", hex(UInt64(vendorID), digits: 4), .int(Int(vendorID))),
            DescribedField("product_id", "Product ID", hex(UInt64(productID), digits: 4), .int(Int(productID))),
            DescribedField("product_version", "Product version", "\(versionText) (\(hex(UInt64(productVersion), digits: 4)))",
                           .string(versionText)),
        ]
    }
}
