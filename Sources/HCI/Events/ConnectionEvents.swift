import BLECore

/// Disconnection Complete (Vol 4 Part E 7.7.5).
public struct HCIDisconnectionCompleteEvent: HCIParameters {
    public var status: HCIStatus
    public var handle: UInt16
    public var reason: HCIStatus

    public init(status: HCIStatus = .success, handle: UInt16, reason: HCIStatus) {
        self.status = status
        self.handle = handle
        self.reason = reason
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("Disconnection Complete") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt8())
        }
        self.init(status: HCIStatus(rawValue: f.0), handle: f.1 & 0x0FFF, reason: HCIStatus(rawValue: f.2))
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
        writer.append(reason.rawValue)
    }
}

/// Encryption Change v1 (0x08) and v2 (0x59, adds the key size) (Vol 4 Part E 7.7.8).
public struct HCIEncryptionChangeEvent: HCIParameters {
    public var status: HCIStatus
    public var handle: UInt16
    /// 0x00 off, 0x01 on (AES-CCM for LE).
    public var encryptionEnabled: UInt8
    /// Present only in the v2 event.
    public var keySize: UInt8?

    public init(status: HCIStatus = .success, handle: UInt16, encryptionEnabled: UInt8, keySize: UInt8? = nil) {
        self.status = status
        self.handle = handle
        self.encryptionEnabled = encryptionEnabled
        self.keySize = keySize
    }
    /// Decodes without the event code: a fifth byte is taken as the v2 key size.
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let version2 = reader.remainingCount > 4
        try self.init(decoding: &reader, version2: version2)
    }

    /// Decodes the layout the event code names. The code, not the length, decides: a v2 event cut
    /// short must be rejected, not passed off as v1 without a key size.
    public init(decoding reader: inout ByteReader, version2: Bool) throws(HCIDecodingError) {
        let what = version2 ? "Encryption Change v2" : "Encryption Change"
        let f = try reader.decoding(what) { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt8())
        }
        let keySize = version2 ? try reader.decoding(what) { r throws(ByteReaderError) in try r.readUInt8() } : nil
        self.init(status: HCIStatus(rawValue: f.0), handle: f.1 & 0x0FFF, encryptionEnabled: f.2, keySize: keySize)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
        writer.append(encryptionEnabled)
        if let keySize { writer.append(keySize) }
    }
}

/// Encryption Key Refresh Complete (Vol 4 Part E 7.7.39).
public struct HCIEncryptionKeyRefreshCompleteEvent: HCIParameters {
    public var status: HCIStatus
    public var handle: UInt16
    public init(status: HCIStatus = .success, handle: UInt16) {
        self.status = status
        self.handle = handle
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("Encryption Key Refresh Complete") { r throws(ByteReaderError) in (try r.readUInt8(), try r.readUInt16()) }
        self.init(status: HCIStatus(rawValue: f.0), handle: f.1 & 0x0FFF)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
    }
}

/// Read Remote Version Information Complete (Vol 4 Part E 7.7.12).
public struct HCIReadRemoteVersionCompleteEvent: HCIParameters {
    public var status: HCIStatus
    public var handle: UInt16
    public var version: UInt8
    public var manufacturer: UInt16
    public var subversion: UInt16

    public init(status: HCIStatus = .success, handle: UInt16, version: UInt8, manufacturer: UInt16, subversion: UInt16) {
        self.status = status
        self.handle = handle
        self.version = version
        self.manufacturer = manufacturer
        self.subversion = subversion
    }
    public init(decoding reader: inout ByteReader) throws(HCIDecodingError) {
        let f = try reader.decoding("Read Remote Version Information Complete") { r throws(ByteReaderError) in
            (try r.readUInt8(), try r.readUInt16(), try r.readUInt8(), try r.readUInt16(), try r.readUInt16())
        }
        self.init(status: HCIStatus(rawValue: f.0), handle: f.1 & 0x0FFF, version: f.2, manufacturer: f.3, subversion: f.4)
    }
    public func encode(into writer: inout ByteWriter) {
        writer.append(status.rawValue)
        writer.append(handle)
        writer.append(version)
        writer.append(manufacturer)
        writer.append(subversion)
    }
}
