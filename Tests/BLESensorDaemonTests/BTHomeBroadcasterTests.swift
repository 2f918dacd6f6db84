import BLECore
import BTHome
import BridgeConfiguration
import ControlSocket
import Foundation
import Logging
import Testing
import TestSupport
@testable import BLESensorDaemon

/// The broadcaster against a recording sink: packets from the newest readings, in object order,
/// failed sensors left out, encrypted packets with an increasing counter kept on disk.
@Suite(.scaledTimeLimit(minutes: 1)) struct BTHomeBroadcasterTests {
    static let address: [UInt8] = [0xC1, 0x22, 0x33, 0x44, 0x55, 0x66]

    func broadcaster(_ settings: BroadcastSettings, counterPath: String = "/nonexistent/counter") -> (BTHomeBroadcaster, Recorder<[UInt8]>) {
        let (exporter, packets, _) = recordingBroadcaster(settings, counterPath: counterPath)
        return (exporter, packets)
    }

    /// Also records every time the service data is taken out of the advertisement (after the packets so far).
    func recordingBroadcaster(_ settings: BroadcastSettings, counterPath: String = "/nonexistent/counter")
        -> (BTHomeBroadcaster, Recorder<[UInt8]>, Recorder<Int>) {
        let packets = Recorder<[UInt8]>()
        let clears = Recorder<Int>()
        let sink = BroadcastSink(address: { Self.address }, advertise: { data in
            if let data { packets.append(data) } else { clears.append(packets.all.count) }
        })
        // No minimum interval: every change goes out at once, so the tests need no clock.
        let schedule = BTHomeSchedule(minimumInterval: .zero, keepAlive: .seconds(3600))
        return (BTHomeBroadcaster(settings: settings, counterPath: counterPath, sink: sink, logger: Logger(label: "test"), schedule: schedule,
                                  initialPacketID: 0),
                packets, clears)
    }

    func status(_ name: String, _ readings: [(String, Double)], state: SensorStatus.State = .ok) -> SensorStatus {
        SensorStatus(name: name, driver: "bme280", value: readings.first?.1, unit: "", ageSeconds: 0, state: state, error: nil,
                     readings: readings.map { QuantityReading(quantity: $0.0, value: $0.1, unit: "") }, reads: 1, failures: 0)
    }

    @Test func theNewestReadingsGoOutInObjectOrderAndFailedSensorsAreLeftOut() async throws {
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env", "battery"]))
        let (exporter, packets) = broadcaster(settings)
        exporter.start()
        exporter.sensorChanged(status("env", [("temperature", 25.06), ("pressure", 100_883), ("humidity", 50.55)]))
        #expect(await packets.wait(for: 1))
        #expect(packets.all[0].hexString == "40" + "0001" + "02ca09" + "03bf13" + "04138a01")
        exporter.sensorChanged(status("battery", [("battery-level", 97)]))
        #expect(await packets.wait(until: { $0.last?.hexString == "40" + "0002" + "0161" + "02ca09" + "03bf13" + "04138a01" }))
        // A failed sensor's old values are not broadcast as current; an unselected one is ignored.
        exporter.sensorChanged(status("env", [], state: .failed))
        exporter.sensorChanged(status("soc", [("temperature", 50)]))
        #expect(await packets.wait(until: { $0.last?.suffix(2).hexString == "0161" && $0.last?.count == 5 }))
        // Back: its values go out again.
        exporter.sensorChanged(status("env", [("temperature", 25.06)]))
        #expect(await packets.wait(until: { $0.last?.suffix(5).hexString == "0161" + "02ca09" }))
        // Stopped and finished: every packet handed to the sink is counted.
        exporter.stop()
        await exporter.finished()
        let shown = exporter.status()
        #expect(shown.name == "bthome" && shown.state == .running)
        #expect(shown.endpoint == "BTHome v2 service data 0xFCD2 (not encrypted)")
        #expect(shown.sent == Int64(packets.all.count))
        #expect(shown.detail == "sensors: env, battery; objects: temperature, humidity, pressure, battery-level")
    }

    @Test func onlyTheConfiguredObjectsGoOut() async throws {
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env"]), objects: [.humidity])
        let (exporter, packets) = broadcaster(settings)
        exporter.start()
        exporter.sensorChanged(status("env", [("temperature", 25.06), ("humidity", 50.55), ("heart-rate", 70)]))
        #expect(await packets.wait(for: 1))
        #expect(packets.all[0].hexString == "40" + "0001" + "03bf13")
        exporter.stop()
    }

    @Test func encryptedPacketsOpenWithTheKeyAndTheirCounterSurvivesARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bthome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counterPath = directory.appendingPathComponent("bthome-counter").path
        let bindkey = hex("231d39c1d7cc1ab1aee224cd096db932")
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env"]), bindkey: bindkey)
        var counters: [UInt32] = []
        for run in 0..<2 {
            let (exporter, packets) = broadcaster(settings, counterPath: counterPath)
            exporter.start()
            for value in 0..<3 {
                exporter.sensorChanged(status("env", [("temperature", Double(20 + value))]))
                #expect(await packets.wait(for: value + 1))
            }
            exporter.stop()
            #expect(exporter.status().endpoint == "BTHome v2 service data 0xFCD2 (encrypted)")
            for packet in packets.all {
                #expect(packet[0] == 0x41 && packet.count == 1 + 5 + 4 + 4)
                let counter = Array(packet[6..<10])
                let nonce = Self.address + [0xD2, 0xFC, 0x41] + counter
                let objects = try AESCCM(key: bindkey).open(Array(packet[1..<6]) + Array(packet[10...]), nonce: nonce)
                #expect(objects.first == 0x00 && objects[2] == 0x02)
                counters.append(counter.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
            }
            #expect(packets.all.count == 3, "run \(run)")
        }
        // The first run had no file: it started at the wall clock (BTHomeCounterStoreTests), not 0.
        #expect(counters.first.map { $0 > 0 } == true)
        #expect(counters.map { $0 &- (counters.first ?? 0) } == [0, 1, 2, 1024, 1025, 1026])
    }

    @Test func aDamagedCounterFileStopsTheEncryptedBroadcast() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bthome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counterPath = directory.appendingPathComponent("bthome-counter").path
        try "garbage\n".write(toFile: counterPath, atomically: true, encoding: .utf8)
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env"]), bindkey: [UInt8](repeating: 7, count: 16))
        let (exporter, packets) = broadcaster(settings, counterPath: counterPath)
        exporter.start()
        exporter.sensorChanged(status("env", [("temperature", 20)]))
        await exporter.finished()
        #expect(exporter.status().state == .failed)
        #expect(exporter.status().lastError?.contains("rather than reuse a counter") == true)
        #expect(packets.all.isEmpty)
        exporter.stop()
    }
}

extension BTHomeBroadcasterTests {
    /// Repeated objects are named by position: while the first sensor has no temperature, the
    /// second's is left out rather than shown as the first's.
    @Test func aFailedSensorDoesNotShiftTheNextSensorsValues() async throws {
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["inside", "outside"]))
        let (exporter, packets) = broadcaster(settings)
        exporter.start()
        exporter.sensorChanged(status("inside", [("temperature", 20)]))
        exporter.sensorChanged(status("outside", [("temperature", 5)]))
        #expect(await packets.wait(until: { $0.last?.hexString.hasSuffix("02d007" + "02f401") == true }))
        exporter.sensorChanged(status("inside", [], state: .failed))
        #expect(await packets.wait(until: { $0.last?.count == 3 }))
        #expect(!packets.all.contains { $0.count == 6 && $0.suffix(3).hexString == "02f401" })
        exporter.stop()
        await exporter.finished()
    }

    /// Stopped, or stopped by a failure: the last packet leaves the advertisement, so no receiver
    /// shows its values as current.
    @Test func theLastPacketIsTakenOffTheAirWhenTheBroadcastEnds() async throws {
        let (exporter, packets, clears) = recordingBroadcaster(BroadcastSettings(sensors: ExportedSensors(names: ["env"])))
        exporter.start()
        exporter.sensorChanged(status("env", [("temperature", 20)]))
        #expect(await packets.wait(for: 1))
        exporter.stop()
        await exporter.finished()
        #expect(clears.all == [1])

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bthome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let counterPath = directory.appendingPathComponent("bthome-counter").path
        // One counter left: the second packet has none, and the broadcast stops.
        try "\(UInt32.max - 1)\n".write(toFile: counterPath, atomically: true, encoding: .utf8)
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env"]), bindkey: [UInt8](repeating: 7, count: 16))
        let (encrypted, sealed, cleared) = recordingBroadcaster(settings, counterPath: counterPath)
        encrypted.start()
        encrypted.sensorChanged(status("env", [("temperature", 20)]))
        #expect(await sealed.wait(for: 1))
        encrypted.sensorChanged(status("env", [("temperature", 21)]))
        await encrypted.finished()
        #expect(encrypted.status().state == .failed)
        #expect(sealed.all.count == 1 && cleared.all == [1])
        encrypted.stop()
    }

    /// A poll that changes nothing spends no packet id (nor counter): receivers drop big id jumps.
    @Test func unchangedValuesSendNoNewPacket() async throws {
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["env"]))
        let (exporter, packets) = broadcaster(settings)
        exporter.start()
        exporter.sensorChanged(status("env", [("temperature", 25.06)]))
        #expect(await packets.wait(for: 1))
        exporter.sensorChanged(status("env", [("temperature", 25.06)]))
        exporter.sensorChanged(status("env", [("temperature", 25.06)]))
        exporter.sensorChanged(status("env", [("temperature", 25.07)]))
        #expect(await packets.wait(for: 2))
        #expect(packets.all.map(\.hexString) == ["40" + "0001" + "02ca09", "40" + "0002" + "02cb09"])
        exporter.stop()
        await exporter.finished()
    }

    @Test func whatDoesNotFitOnePacketIsLeftOutAndShown() async throws {
        let settings = BroadcastSettings(sensors: ExportedSensors(names: ["a", "b", "c", "d", "e"]))
        let (exporter, packets) = broadcaster(settings)
        exporter.start()
        for name in ["a", "b", "c", "d", "e"] {
            exporter.sensorChanged(status(name, [("temperature", 20), ("humidity", 50)]))
        }
        #expect(await packets.wait(until: { $0.last?.count == 24 }))
        #expect(exporter.status().detail?.contains("value(s) left out: one advertising packet holds no more") == true)
        exporter.stop()
    }
}
