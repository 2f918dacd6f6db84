import BLECore
import BridgeConfiguration
import CMosquitto
import ControlSocket
import Foundation

/// The MQTT thread: one libmosquitto client driven by poll() on its socket and the exporter's
/// eventfd (mosquitto_loop_read/write/misc), never by libmosquitto's own thread. Connects, waits
/// for the CONNACK with a deadline, reconnects with back-off, and publishes what the sensor
/// threads left in the latest-value table.
///
/// `@unchecked Sendable`: handed to the MQTT thread at start and used only there afterwards
/// (libmosquitto's callbacks run inside loop_read/write/misc, on that thread).
final class MQTTConnectionLoop: @unchecked Sendable {
    enum Phase { case idle, awaitingConnack, connected }

    /// How long a broker may take to answer CONNECT before we hang up and try again later.
    static let connackTimeout = Duration.seconds(10)
    /// Publishes handed to libmosquitto and not yet acknowledged (QoS 1/2) or written (QoS 0):
    /// beyond this, values stay in the table (and are replaced there) instead of queueing inside
    /// libmosquitto, whose queue has no bound.
    static let maxInFlight = 100
    /// How long a stop may spend saying goodbye: well within `MQTTExporter.stop()`'s wait.
    static let goodbyeBudget = Duration.seconds(2)

    private let exporter: MQTTExporter
    private var mosquitto: OpaquePointer?
    private var phase = Phase.idle
    private var backoff = ReconnectBackoff()
    private var nextAttempt: MonotonicInstant
    private var connackDeadline: MonotonicInstant
    private var inFlight = InFlightWindow(limit: maxInFlight)
    private var republish = false
    /// Set by the CONNACK callback when the broker refused us: (message, fatal).
    private var refusal: (String, Bool)?

    init(exporter: MQTTExporter) {
        self.exporter = exporter
        nextAttempt = exporter.clock()
        connackDeadline = nextAttempt
    }

    private var settings: MQTTSettings { exporter.settings }
    private var topics: MQTTTopics { exporter.topics }

    func run() {
        defer {
            if let mosquitto { mosquitto_destroy(mosquitto) }
            exporter.shared.withLock { $0.stopped = true }
        }
        guard exporter.wakeDescriptor >= 0 else {
            return fail("cannot create the MQTT thread's eventfd: \(String(cString: strerror(errno)))")
        }
        guard let client = mosquitto_new(exporter.clientID, true, Unmanaged.passUnretained(self).toOpaque()) else {
            return fail("cannot create the MQTT client: \(String(cString: strerror(errno)))")
        }
        mosquitto = client
        if let problem = configure(client) { return fail(problem) }
        while !exporter.shared.withLock({ $0.stopping }) {
            step(client)
        }
        goOffline(client)
    }

    /// Will, credentials, TLS and callbacks; a message when the settings cannot be applied.
    private func configure(_ client: OpaquePointer) -> String? {
        mosquitto_connect_callback_set(client) { _, object, code in MQTTConnectionLoop.from(object)?.connackReceived(code) }
        mosquitto_disconnect_callback_set(client) { _, object, code in MQTTConnectionLoop.from(object)?.disconnected(code) }
        mosquitto_publish_callback_set(client) { _, object, messageID in MQTTConnectionLoop.from(object)?.inFlight.acknowledged(messageID) }
        mosquitto_message_callback_set(client) { _, object, message in
            guard let loop = MQTTConnectionLoop.from(object), let message else { return }
            loop.messageReceived(message.pointee)
        }
        let offline = Array("offline".utf8)
        var code = mosquitto_will_set(client, topics.availability, Int32(offline.count), offline, Int32(settings.qos), true)
        guard code == success else { return "the MQTT will cannot be set: \(Self.describe(code))" }
        if let username = settings.username {
            code = mosquitto_username_pw_set(client, username, settings.password)
            guard code == success else { return "the MQTT user name cannot be set: \(Self.describe(code))" }
        }
        if settings.broker.tls {
            // Without ca-file, the system's CAs (ca-certificates' hashed directory).
            code = mosquitto_tls_set(client, settings.caFile, settings.caFile == nil ? "/etc/ssl/certs" : nil,
                                     settings.clientCertificate, settings.clientKey, nil)
            guard code == success else {
                return "the TLS files cannot be used (ca-file, client-certificate, client-key must be readable PEM files): \(Self.describe(code))"
            }
        }
        return nil
    }

    private func step(_ client: OpaquePointer) {
        let now = exporter.clock()
        switch phase {
        case .idle where now >= nextAttempt:
            connect(client)
        case .awaitingConnack where now >= connackDeadline:
            lost(client, "no answer from \(settings.broker) within \(Self.connackTimeout.components.seconds) s", alreadySaysBroker: true)
        case .connected:
            if republish {
                republish = false
                announce(client)
            }
            flush(client)
        default:
            break
        }
        waitAndService(client, until: phase == .idle ? nextAttempt : (phase == .awaitingConnack ? connackDeadline : nil))
    }

    /// poll() on the socket (while there is one) and the eventfd, at most a second or until `deadline`.
    private func waitAndService(_ client: OpaquePointer, until deadline: MonotonicInstant?) {
        var timeout: Int32 = 1000
        if let deadline {
            let left = (deadline - exporter.clock()).saturatingNanoseconds / 1_000_000
            timeout = Int32(max(0, min(Int64(timeout), left + 1)))
        }
        let socket = phase == .idle ? -1 : mosquitto_socket(client)
        var descriptors = [pollfd(fd: exporter.wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        if socket >= 0 {
            let events = Int32(POLLIN) | (mosquitto_want_write(client) ? Int32(POLLOUT) : 0)
            descriptors.append(pollfd(fd: socket, events: Int16(events), revents: 0))
        }
        let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
        guard ready >= 0 else { return }
        if descriptors[0].revents != 0 {
            var counter: UInt64 = 0
            _ = read(exporter.wakeDescriptor, &counter, 8)
        }
        guard socket >= 0 else { return }
        let revents = Int32(descriptors[1].revents)
        if revents & (Int32(POLLIN) | Int32(POLLHUP) | Int32(POLLERR)) != 0 {
            let code = mosquitto_loop_read(client, 1)
            if code != success { return lost(client, Self.describe(code)) }
        }
        if phase == .awaitingConnack, settings.broker.tls, revents & Int32(POLLOUT) != 0 {
            // A TLS handshake is advanced by loop_read (as libmosquitto's own loop does on
            // writability); loop_write does nothing until it is done. libmosquitto keeps asking to
            // write during the handshake, so this polls busily for its round trips, bounded by the
            // deadline. Reading with nothing to read is harmless.
            let code = mosquitto_loop_read(client, 1)
            if code != success { return lost(client, Self.describe(code)) }
        }
        if phase != .idle, revents & Int32(POLLOUT) != 0 {
            let code = mosquitto_loop_write(client, 1)
            if code != success { return lost(client, Self.describe(code)) }
        }
        if phase != .idle {
            let code = mosquitto_loop_misc(client)
            if code != success { lost(client, Self.describe(code)) }
        }
    }

    private func connect(_ client: OpaquePointer) {
        refusal = nil
        inFlight.reset()
        // A fresh session: libmosquitto would otherwise send the last connection's unacknowledged
        // publishes again on CONNACK, old values, outside the in-flight window. Reinitialising
        // clears the will, credentials, TLS and callbacks too, so they are applied again.
        var code = mosquitto_reinitialise(client, exporter.clientID, true, Unmanaged.passUnretained(self).toOpaque())
        guard code == success else {
            return scheduleRetry("cannot reset the MQTT client: \(Self.describe(code))", state: .connecting)
        }
        if let problem = configure(client) { return scheduleRetry(problem, state: .failed) }
        let keepalive = Int32(settings.keepalive.components.seconds)
        // The deadline covers the TCP (and TLS) handshake too: a blackholed broker must not hold
        // the thread in a blocking connect() for minutes, out of reach of stop(). The async call
        // only starts the TCP connection; the CONNECT goes out when poll() says the socket is
        // writable. Its host name lookup (getaddrinfo) still blocks, usually briefly.
        connackDeadline = exporter.clock() + Self.connackTimeout
        code = mosquitto_connect_async(client, settings.broker.host, Int32(settings.broker.port), keepalive)
        guard code == success else {
            return scheduleRetry("cannot connect to \(settings.broker): \(Self.describe(code))", state: .connecting)
        }
        phase = .awaitingConnack
    }

    /// CONNACK: 0 is accepted; a refused user name or password will not get better by retrying soon.
    private func connackReceived(_ code: Int32) {
        guard code == 0 else {
            let reason = String(cString: mosquitto_connack_string(code))
            switch code {
            case 4, 5: refusal = ("the broker refused the user name or password (\(reason)): check username and password-file", true)
            case 2: refusal = ("the broker refused the client id '\(exporter.clientID)' (\(reason)): set another client-id", true)
            case 1: refusal = ("the broker does not speak MQTT 3.1.1 (\(reason))", true)
            default: refusal = ("the broker refused the connection (\(reason))", false)
            }
            return
        }
        phase = .connected
        backoff.reset()
        let hadError = exporter.shared.withLock { shared -> Bool in
            shared.state = .running
            return shared.lastError != nil
        }
        exporter.logger.info("MQTT: connected to \(settings.broker) as '\(exporter.clientID)'\(hadError ? " again" : "")")
        _ = mosquitto_subscribe(mosquitto, nil, topics.homeAssistantStatus, Int32(settings.qos))
        republish = true
        exporter.wake()
    }

    private func disconnected(_ code: Int32) {
        guard code != 0, phase != .idle, let mosquitto else { return }
        lost(mosquitto, Self.describe(code))
    }

    private func messageReceived(_ message: mosquitto_message) {
        guard let topic = message.topic, String(cString: topic) == topics.homeAssistantStatus, let payload = message.payload else { return }
        let text = String(decoding: UnsafeRawBufferPointer(start: payload, count: Int(max(0, message.payloadlen))), as: UTF8.self)
        if text == "online" { republish = true }
    }

    /// `online`, every config, and every current value again: after connecting and when Home
    /// Assistant says it (re)started.
    private func announce(_ client: OpaquePointer) {
        publish(client, MQTTMessage(topic: topics.availability, payload: "online", retain: true))
        for entity in exporter.entities {
            publish(client, MQTTMessage(topic: entity.configTopic, payload: entity.config, retain: true))
        }
        exporter.shared.withLock { $0.values.resendCurrent() }
    }

    private func flush(_ client: OpaquePointer) {
        guard !inFlight.isFull else { return }
        let messages = exporter.shared.withLock { $0.values.takePending() }
        for message in messages { publish(client, message) }
    }

    private func publish(_ client: OpaquePointer, _ message: MQTTMessage) {
        let payload = Array(message.payload.utf8)
        var messageID: Int32 = 0
        let code = mosquitto_publish(client, &messageID, message.topic, Int32(payload.count), payload, Int32(settings.qos), message.retain)
        if code == success {
            inFlight.sent(messageID)
            exporter.shared.withLock { $0.sent += 1 }
        } else {
            exporter.shared.withLock { $0.values.countDropped(1) }
        }
    }

    /// The connection ended (or never completed): try again after the back-off.
    private func lost(_ client: OpaquePointer, _ reason: String, alreadySaysBroker: Bool = false) {
        guard phase != .idle else { return }
        let wasConnected = phase == .connected
        phase = .idle
        // Closes the socket of a CONNECT that was never answered; harmless when already closed.
        _ = mosquitto_disconnect(client)
        if let (message, fatal) = refusal {
            return scheduleRetry(message, state: fatal ? .failed : .connecting)
        }
        if alreadySaysBroker { return scheduleRetry(reason, state: .connecting) }
        scheduleRetry(wasConnected ? "lost the connection to \(settings.broker): \(reason)" : "cannot connect to \(settings.broker): \(reason)",
                      state: .connecting)
    }

    private func scheduleRetry(_ message: String, state: ExporterStatus.State) {
        let now = exporter.clock()
        if state == .failed {
            // Retried rarely: the broker's user list may be fixed without restarting the daemon.
            while backoff.delay < backoff.cap { _ = backoff.nextAttempt(after: now) }
        }
        nextAttempt = backoff.nextAttempt(after: now)
        let changed = exporter.shared.withLock { shared -> Bool in
            defer {
                shared.state = state
                shared.lastError = message
            }
            return shared.lastError != message || shared.state != state
        }
        if changed { exporter.logger.warning("MQTT: \(message); retrying") }
    }

    /// A problem no retry can fix (the settings cannot be applied): the thread ends.
    private func fail(_ message: String) {
        exporter.shared.withLock { shared in
            shared.state = .failed
            shared.lastError = message
        }
        exporter.logger.error("MQTT: \(message)")
    }

    /// A clean goodbye: `offline` ourselves, then DISCONNECT (which makes the broker discard the
    /// will). At QoS 0 the goodbye goes straight into libmosquitto's output, in order before the
    /// DISCONNECT, whatever the in-flight window holds. If it cannot be written in time, the socket
    /// is closed without DISCONNECT (by mosquitto_destroy) so that the broker publishes the will.
    private func goOffline(_ client: OpaquePointer) {
        guard phase == .connected else { return }
        let deadline = exporter.clock() + Self.goodbyeBudget
        let offline = Array("offline".utf8)
        guard mosquitto_publish(client, nil, topics.availability, Int32(offline.count), offline, 0, true) == success,
              drain(client, until: deadline) else {
            return exporter.logger.warning("MQTT: could not say offline in time; the broker will publish the will")
        }
        _ = mosquitto_disconnect(client)
        _ = drain(client, until: deadline)
    }

    /// Writes what libmosquitto has queued; true once everything is written.
    private func drain(_ client: OpaquePointer, until deadline: MonotonicInstant) -> Bool {
        while mosquitto_want_write(client) {
            let left = (deadline - exporter.clock()).saturatingNanoseconds / 1_000_000
            guard left > 0 else { return false }
            var descriptor = pollfd(fd: mosquitto_socket(client), events: Int16(POLLOUT), revents: 0)
            guard descriptor.fd >= 0, poll(&descriptor, 1, Int32(min(left, 100))) >= 0 else { return false }
            if descriptor.revents != 0, mosquitto_loop_write(client, 1) != success { return false }
        }
        return true
    }

    private static func from(_ object: UnsafeMutableRawPointer?) -> MQTTConnectionLoop? {
        object.map { Unmanaged<MQTTConnectionLoop>.fromOpaque($0).takeUnretainedValue() }
    }

    private var success: Int32 { Int32(MOSQ_ERR_SUCCESS.rawValue) }

    /// libmosquitto's text for a code, with the system's for MOSQ_ERR_ERRNO.
    static func describe(_ code: Int32) -> String {
        if code == Int32(MOSQ_ERR_ERRNO.rawValue) { return String(cString: strerror(errno)) }
        if code == Int32(MOSQ_ERR_EAI.rawValue) { return "the broker's host name cannot be resolved" }
        let text = String(cString: mosquitto_strerror(code))
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
