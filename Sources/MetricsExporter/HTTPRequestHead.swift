/// The request line and headers of an HTTP/1.x request: all a GET-only metrics endpoint reads.
public struct HTTPRequestHead: Sendable, Equatable {
    public var method: String
    /// The path without its query (`/metrics` of `/metrics?x=1`).
    public var path: String
    /// Header names lower-cased; a repeated header keeps its first value.
    public var headers: [String: String]

    public enum Parse: Sendable, Equatable {
        /// More bytes are needed for the blank line that ends the head.
        case incomplete
        case complete(HTTPRequestHead)
        /// Not HTTP/1.x: the reason goes into the 400 response.
        case malformed(String)
        case tooLarge
    }

    /// Requests are a line and a few headers; anything longer is not a scraper.
    public static let maximumBytes = 8192

    /// Total over any bytes: never traps, whatever arrives.
    public static func parse(_ bytes: [UInt8]) -> Parse {
        guard let end = headEnd(bytes) else { return bytes.count > maximumBytes ? .tooLarge : .incomplete }
        guard end <= maximumBytes else { return .tooLarge }
        let lines = bytes[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        guard let requestLine = lines.first, requestLine.allSatisfy(isVisibleOrSpace) else { return .malformed("bad request line") }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenCharacter) else { return .malformed("bad request line") }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { return .malformed("only HTTP/1.0 and HTTP/1.1 are served") }
        let target = String(decoding: parts[1], as: UTF8.self)
        guard target.hasPrefix("/") else { return .malformed("the request target must be a path") }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return .malformed("bad header line") }
            let name = line[..<colon]
            guard name.allSatisfy(isTokenCharacter) else { return .malformed("bad header name") }
            let value = line[line.index(after: colon)...]
            guard value.allSatisfy({ isVisibleOrSpace($0) || $0 == 0x09 || $0 >= 0x80 }) else { return .malformed("bad header value") }
            let key = String(decoding: name, as: UTF8.self).lowercased()
            if headers[key] == nil {
                headers[key] = String(decoding: value, as: UTF8.self).trimmedOfBlanks()
            }
        }
        return .complete(HTTPRequestHead(method: String(decoding: parts[0], as: UTF8.self), path: path, headers: headers))
    }

    /// The index just past the blank line ending the head (CRLF CRLF, or bare LF LF).
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "\r"), bytes[index + 2] == UInt8(ascii: "\n") { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    private static func isVisibleOrSpace(_ byte: UInt8) -> Bool { byte >= 0x20 && byte < 0x7F }

    /// RFC 9110's tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (header values, Accept parameters).
    func trimmedOfBlanks() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
