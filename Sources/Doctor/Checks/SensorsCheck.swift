import BridgeConfiguration
import ChildProcesses
import ControlSocket

extension Examination {
    /// Each configured sensor's state: from the daemon's status when it runs (the buses are its, and
    /// a GPIO line cannot be requested twice), else from one read through the real driver.
    mutating func checkSensors(_ configuration: BridgeConfiguration, daemon: DaemonState) {
        switch daemon {
        case let .answering(snapshot):
            for sensor in configuration.sensors {
                let subject = "sensor \(sensor.name)"
                guard let status = snapshot.sensors.first(where: { $0.name == sensor.name }) else {
                    add(.sensors, .warn, subject, "not in the daemon's status: it runs another configuration",
                        fix: "\(Installed.restart) to load the current file")
                    continue
                }
                report(status, subject: subject, source: .daemon)
            }
            let unknown = snapshot.sensors.map(\.name).filter { name in !configuration.sensors.contains { $0.name == name } }
            if !unknown.isEmpty {
                add(.sensors, .warn, "sensors", "the daemon serves \(unknown.joined(separator: ", ")), which the configuration does not have: it runs another configuration",
                    fix: "\(Installed.restart) to load the current file")
            }
        case .runningUnreachable:
            add(.sensors, .info, "sensors", "not read: blesensord runs and holds the buses, and its status could not be read (see above)")
        case .stopped:
            guard let reader = environment.sensors else {
                add(.sensors, .info, "sensors", "not read: the drivers open the real devices, not those under \(root.path)")
                return
            }
            for sensor in configuration.sensors {
                readDirectly(sensor, board: configuration.board, reader: reader)
            }
        }
    }

    private mutating func readDirectly(_ sensor: SensorConfiguration, board: BoardProfile, reader: any SensorReader) {
        let subject = "sensor \(sensor.name)"
        let outcome = BoundedWork.run(name: "doctor-read-\(sensor.name)", timeout: options.sensorTimeout, clock: environment.clock) {
            reader.read(sensor, board: board)
        }
        switch outcome {
        case let .finished(status):
            report(status, subject: subject, source: .directRead)
        case .timedOut:
            add(.sensors, .fail, subject, "(\(sensor.driver.rawValue)) did not answer within \(seconds(options.sensorTimeout)) (read now)",
                fix: "a bus transfer hangs: check the wiring, power-cycle the sensor, and look at dmesg for bus errors")
        }
    }

    /// One line per sensor state; the driver's message says what to check when it failed.
    private enum Source: String {
        case daemon = "from the daemon"
        case directRead = "read now"
    }

    private mutating func report(_ status: SensorStatus, subject: String, source: Source) {
        let origin = "(\(status.driver), \(source.rawValue))"
        let detail = "\(origin): \(SensorLineFormatter.measurement(status))"
        switch status.state {
        case .ok:
            add(.sensors, .ok, subject, detail)
        case .starting:
            let what = status.reads > 0 ? "answers, still collecting beats for a rate" : "not read yet"
            add(.sensors, .info, subject, "\(origin): \(what)")
        case .noSignal:
            add(.sensors, .warn, subject, detail + (status.error.map { ": \($0)" } ?? ""),
                fix: "nothing to measure yet: rest a fingertip on the sensor, or check that pulses reach the line")
        case .paused:
            add(.sensors, .ok, subject, detail)
        case .failed:
            add(.sensors, .fail, subject, detail, fix: source == .daemon
                ? "do what the message says; the daemon retries a failed sensor by itself (watch with blesensor sensors)"
                : "do what the message says, then run blesensor doctor again")
        }
    }

    private func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        return attoseconds == 0 ? "\(whole) s" : "\(Double(whole) + Double(attoseconds) / 1e18) s"
    }
}
