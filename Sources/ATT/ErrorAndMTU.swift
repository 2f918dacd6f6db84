import BLECore

// Error Response (3.4.1) and Exchange MTU (3.4.2).
extension ATTPDU {
    static func decodeErrorOrMTU(_ r: inout ATTParameterReader) throws(ATTDecodingError) -> ATTPDU {
        switch r.opcode {
        case .errorResponse:
            let request = ATTOpcode(try r.uint8())
            let handle = try r.uint16()
            let error = ATTErrorCode(try r.uint8())
            try r.finish(fixedParameterLength: 4)
            return .errorResponse(requestOpcode: request, handle: handle, error: error)
        case .exchangeMTURequest:
            let mtu = try r.uint16()
            try r.finish(fixedParameterLength: 2)
            return .exchangeMTURequest(clientRxMTU: mtu)
        default:
            let mtu = try r.uint16()
            try r.finish(fixedParameterLength: 2)
            return .exchangeMTUResponse(serverRxMTU: mtu)
        }
    }

    func encodeErrorOrMTU(into writer: inout ByteWriter) {
        switch self {
        case let .errorResponse(request, handle, error):
            writer.append(request)
            writer.append(handle)
            writer.append(error.rawValue)
        case let .exchangeMTURequest(mtu), let .exchangeMTUResponse(mtu):
            writer.append(mtu)
        default:
            break
        }
    }
}
