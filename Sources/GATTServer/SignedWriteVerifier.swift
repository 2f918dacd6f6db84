import HCI

/// Verifies the Authentication Signature of a Signed Write Command with the client's CSRK and its
/// sign counter (Core Vol 3 Part C 10.4.2); the security layer above provides it.
public struct SignedWriteVerifier: Sendable {
    public let verify: @Sendable (_ link: Link, _ signedPDU: [UInt8]) -> Bool

    public init(verify: @escaping @Sendable (_ link: Link, _ signedPDU: [UInt8]) -> Bool) {
        self.verify = verify
    }
}

extension GATTServer {
    /// Installs the signature check; without one, Signed Write Commands are dropped.
    public func setSignedWriteVerifier(_ verifier: SignedWriteVerifier?) {
        signedWriteVerifier.withLock { $0 = verifier }
    }

    /// A Signed Write Command is applied only when its signature verifies (a failure is silently
    /// dropped, as a command has no response: Core Vol 3 Part F 3.4.5.4).
    func signedWriteCommand(handle: UInt16, value: [UInt8], signature: [UInt8], context: ConnectionContext) async {
        let pdu = [0xD2, UInt8(truncatingIfNeeded: handle), UInt8(truncatingIfNeeded: handle >> 8)] + value + signature
        guard let verifier = signedWriteVerifier.withLock({ $0 }) else {
            logger.info("ATT: Signed Write Command dropped: signed writes are not set up (no bonds)",
                        metadata: ["link": "\(context.link.id)", "handle": "\(handle)"])
            return
        }
        guard verifier.verify(context.link, pdu) else {
            logger.warning("ATT: Signed Write Command dropped: the signature does not verify with the client's CSRK (or its counter went back)",
                           metadata: ["link": "\(context.link.id)", "handle": "\(handle)"])
            return
        }
        do {
            let planned = try planWrite(handle: handle, value: value, kind: .signedCommand, context: context)
            try await apply([planned], kind: .signedCommand, context: context)
        } catch {
            logger.debug("ATT: Signed Write Command dropped: \(error.code)",
                         metadata: ["link": "\(context.link.id)", "handle": "\(error.handle)"])
        }
    }
}
