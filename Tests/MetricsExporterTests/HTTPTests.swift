import BLECore
import Glibc
import Testing
import TestSupport
@testable import MetricsExporter

@Suite struct HTTPRequestHeadTests {
    static func parse(_ text: String) -> HTTPRequestHead.Parse { HTTPRequestHead.parse(Array(text.utf8)) }

    @Test func aScrapeIsRead() {
        let parsed = Self.parse("GET /metrics?x=1 HTTP/1.1\r\nHost: pi:9879\r\nAccept: application/openmetrics-text\r\nUser-Agent: Prometheus/2.42.0\r\n\r\n")
        #expect(parsed == .complete(HTTPRequestHead(method: "GET", path: "/metrics",
                                                    headers: ["host": "pi:9879", "accept": "application/openmetrics-text", "user-agent": "Prometheus/2.42.0"])))
        #expect(Self.parse("HEAD / HTTP/1.0\n\n") == .complete(HTTPRequestHead(method: "HEAD", path: "/", headers: [:])))
    }

    @Test func anUnfinishedHeadWaits() {
        #expect(Self.parse("GET /metrics HTTP/1.1\r\nHost: x\r\n") == .incomplete)
        #expect(Self.parse("") == .incomplete)
    }

    @Test func garbageIsRefusedWithAReason() {
        #expect(Self.parse("GET /metrics\r\n\r\n") == .malformed("bad request line"))
        #expect(Self.parse("GET metrics HTTP/1.1\r\n\r\n") == .malformed("the request target must be a path"))
        #expect(Self.parse("GET / HTTP/2.0\r\n\r\n") == .malformed("only HTTP/1.0 and HTTP/1.1 are served"))
        #expect(Self.parse("GET / HTTP/1.1\r\nNo colon here\r\n\r\n") == .malformed("bad header line"))
        #expect(Self.parse("G\u{1}T / HTTP/1.1\r\n\r\n") == .malformed("bad request line"))
    }

    @Test func aHeadPastTheLimitIsTooLarge() {
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequestHead.maximumBytes) + "\r\n\r\n"
        #expect(Self.parse(long) == .tooLarge)
        #expect(Self.parse(String(repeating: "a", count: HTTPRequestHead.maximumBytes + 1)) == .tooLarge)
    }

    /// Random bytes and mutated requests: the parser answers, never traps.
    @Test func anyBytesGetAnAnswer() {
        var random = SplitMix64(seed: 0x4854_5450)
        let seed = Array("GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n".utf8)
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 96)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = seed
                for _ in 0..<(1 + random.next() % 4) {
                    let index = Int(random.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            _ = HTTPRequestHead.parse(bytes)
        }
    }
}

/// The responder over real sockets on loopback.
@Suite(.scaledTimeLimit(minutes: 1)) struct MetricsHTTPServerTests {
    /// Sends `request` and reads until the server closes; on a thread of its own (blocking calls).
    static func exchange(port: UInt16, _ request: String) async -> String {
        await DedicatedThread.run {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { return "connect failed" }
            let bytes = Array(request.utf8)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var reply: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                reply += buffer[..<count]
            }
            return String(decoding: reply, as: UTF8.self)
        }
    }

    static func server() throws -> (MetricsHTTPServer, UInt16) {
        let server = try MetricsHTTPServer(host: "127.0.0.1", port: 0) { head in
            head.path == "/metrics"
                ? HTTPResponse(status: 200, reason: "OK", contentType: "text/plain; version=0.0.4", body: Array("up 1\n".utf8))
                : HTTPResponse(status: 404, reason: "Not Found", body: Array("no\n".utf8))
        }
        let port = try #require(server.address.split(separator: ":").last.flatMap { UInt16($0) })
        server.start()
        return (server, port)
    }

    @Test func getHeadAndErrorsEachGetTheirAnswer() async throws {
        let (server, port) = try Self.server()
        defer { server.stop() }
        let get = await Self.exchange(port: port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(get.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(get.contains("Content-Type: text/plain; version=0.0.4\r\n"))
        #expect(get.contains("Content-Length: 5\r\n"))
        #expect(get.hasSuffix("\r\n\r\nup 1\n"))
        let head = await Self.exchange(port: port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.hasSuffix("Content-Length: 5\r\nConnection: close\r\n\r\n"))
        #expect(await Self.exchange(port: port, "GET /other HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        let post = await Self.exchange(port: port, "POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(post.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n") && post.contains("Allow: GET, HEAD\r\n"))
        #expect(await Self.exchange(port: port, "hello\r\n\r\n").hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(server.served == 3)
    }

    /// Opens a connection and sends `bytes`; the descriptor stays open for the caller.
    static func open(port: UInt16, sending bytes: String = "") -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let data = Array(bytes.utf8)
        _ = data.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Reads until the server closes the connection (0: closed without a byte).
    static func readToEnd(_ fd: Int32) async -> Int {
        await DedicatedThread.run {
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return total }
                total += count
            }
        }
    }

    @Test func aClientThatNeverFinishesItsRequestIsDropped() async throws {
        let server = try MetricsHTTPServer(host: "127.0.0.1", port: 0, requestTimeout: .milliseconds(200)) { _ in
            HTTPResponse(status: 200, reason: "OK", body: [])
        }
        let port = try #require(server.address.split(separator: ":").last.flatMap { UInt16($0) })
        server.start()
        defer { server.stop() }
        let slow = Self.open(port: port, sending: "GET /metrics HTTP/1.1\r\nHost: x\r\n")
        defer { close(slow) }
        #expect(await Self.readToEnd(slow) == 0)
        #expect(server.served == 0)
    }

    /// Idle sockets held open cannot lock a scraper out: a newcomer beyond the cap closes the
    /// oldest connection still waiting for its request.
    @Test func aScrapeBeyondTheCapIsServedAndTheOldestIdleConnectionGoes() async throws {
        let (server, port) = try Self.server()
        defer { server.stop() }
        let idle = (0..<MetricsHTTPServer.maxConnections).map { _ in Self.open(port: port) }
        defer { idle.forEach { close($0) } }
        let answer = await Self.exchange(port: port, "GET /metrics HTTP/1.1\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n") && answer.hasSuffix("up 1\n"))
        #expect(await Self.readToEnd(idle[0]) == 0)
    }

    @Test func aPortInUseIsNamed() throws {
        let (server, port) = try Self.server()
        defer { server.stop() }
        #expect(throws: MetricsServerError.addressInUse("127.0.0.1:\(port)")) {
            try MetricsHTTPServer(host: "127.0.0.1", port: port) { _ in HTTPResponse(status: 200, reason: "OK", body: []) }
        }
        #expect(MetricsServerError.addressInUse("127.0.0.1:9879").description
                == "127.0.0.1:9879 is already in use by another program; choose another port under metrics: listen")
    }
}
