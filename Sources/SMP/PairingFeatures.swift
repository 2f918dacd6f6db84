/// The parameters of a Pairing Request or Pairing Response (Core Vol 3 Part H 3.5.1, 3.5.2).
public struct PairingFeatures: Sendable, Equatable {
    public var ioCapability: IOCapability
    /// The device has out-of-band authentication data of its peer.
    public var oobDataPresent: Bool
    public var authentication: AuthenticationRequirements
    /// 7…16 octets.
    public var maxKeySize: Int
    public var initiatorKeys: KeyDistribution
    public var responderKeys: KeyDistribution

    public init(ioCapability: IOCapability, oobDataPresent: Bool = false, authentication: AuthenticationRequirements,
                maxKeySize: Int = 16, initiatorKeys: KeyDistribution, responderKeys: KeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authentication = authentication
        self.maxKeySize = maxKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
    }

    /// The six parameter octets, in PDU order.
    var parameters: [UInt8] {
        [ioCapability.rawValue, oobDataPresent ? 1 : 0, authentication.rawValue, UInt8(clamping: maxKeySize),
         initiatorKeys.rawValue, responderKeys.rawValue]
    }

    /// Reads the six parameter octets; reserved values are invalid parameters (Vol 3 Part H 3.5.1).
    init(parameters bytes: ArraySlice<UInt8>) throws(SMPDecodingError) {
        guard bytes.count == 6 else { throw .wrongLength(.pairingRequest, expected: 6, actual: bytes.count) }
        let b = Array(bytes)
        guard let io = IOCapability(rawValue: b[0]) else { throw .invalidParameter("IO capability 0x\(String(b[0], radix: 16))") }
        guard b[1] <= 1 else { throw .invalidParameter("OOB data flag 0x\(String(b[1], radix: 16))") }
        guard (7...16).contains(b[3]) else { throw .invalidParameter("maximum encryption key size \(b[3])") }
        ioCapability = io
        oobDataPresent = b[1] == 1
        // Reserved AuthReq and key distribution bits are ignored on receipt (3.5.1: "shall be ignored").
        authentication = AuthenticationRequirements(rawValue: b[2] & 0x3D)
        maxKeySize = Int(b[3])
        initiatorKeys = KeyDistribution(rawValue: b[4] & 0x0F)
        responderKeys = KeyDistribution(rawValue: b[5] & 0x0F)
    }
}
