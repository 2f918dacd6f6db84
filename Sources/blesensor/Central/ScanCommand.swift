import ArgumentParser
import BLECore
import Central
import Foundation
import GAP

/// `blesensor scan`: the devices around, as a live table on a terminal or JSON lines.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "List the BLE devices heard advertising: address, RSSI, name, services.",
        discussion: """
            On a terminal the table is updated in place; otherwise (or with --json) a line is printed each \
            time a device is first heard or its data changes.
            """)

    @OptionGroup var transport: TransportOptions

    @Option(name: .customLong("service"), help: "Only devices advertising this service UUID (repeatable).")
    var services: [String] = []

    @Option(help: "Seconds to scan.")
    var duration: Double = 10

    @Flag(help: "Listen only: no scan requests, so no scan responses.")
    var passive = false

    @Flag(help: "Report every advertisement, not only new devices and changed data.")
    var allowDuplicates = false

    @Flag(help: "One JSON object per line.")
    var json = false

    func validate() throws {
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be 0 < S <= 86400") }
        for text in services where BluetoothUUID(text) == nil {
            throw ValidationError("--service \(text) is not a UUID (180D, or 6E400001-B5A3-F393-E0A9-E50E24DCCA9E)")
        }
    }

    func run() async throws {
        let filter = services.compactMap(BluetoothUUID.init)
        let session = CentralSession(command: "scan", transport: transport)
        let drawsTable = !json && isatty(STDOUT_FILENO) == 1
        try await session.withManager(interruptIsNormalEnd: true) { manager throws(CLIFailure) in
            let parameters = ScanParameters(active: !passive, filterDuplicates: !allowDuplicates)
            do { try await manager.scanForPeripherals(withServices: filter, parameters: parameters) } catch {
                throw CLIFailure("\(error)")
            }
            let duration = Duration.milliseconds(Int64(self.duration * 1000))
            let lost: String? = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    // Made and drawn by this task alone.
                    let table = drawsTable ? LiveTable() : nil
                    for await event in manager.events {
                        switch event {
                        case let .discovered(report):
                            if let table { table.update(report) } else if json {
                                CentralOutput.json(CentralOutput.discoveryObject(report))
                            } else {
                                CentralOutput.line(CentralOutput.discoveryRow(report))
                            }
                        case let .controllerLost(loss):
                            return "\(loss)"
                        default:
                            break
                        }
                    }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: duration)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            await manager.stopScan()
            if let lost { throw CLIFailure(lost) }
        }
    }
}

/// The scan table on a terminal: one row per device, redrawn in place. It never grows past the
/// terminal's height (rows scrolled off could not be redrawn): the strongest devices are shown and
/// a last line counts the others.
final class LiveTable {
    private var order: [BluetoothAddress] = []
    private var rows: [BluetoothAddress: (text: String, rssi: Int)] = [:]
    private var drawnLines = 0

    func update(_ report: Discovery) {
        let address = report.peer.address
        if rows[address] == nil { order.append(address) }
        rows[address] = (CentralOutput.discoveryRow(report), Int(report.rssi ?? -128))
        let room = max(2, Self.terminalRows() - 1)
        var shown = order
        var footer: String? = nil
        if order.count > room {
            let strongest = Set(order.sorted { (rows[$0]?.rssi ?? -128) > (rows[$1]?.rssi ?? -128) }.prefix(room - 1))
            shown = order.filter(strongest.contains)
            footer = "… and \(order.count - shown.count) more (use --json, or --service to narrow)"
        }
        var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
        for address in shown { text += "\u{1B}[2K" + (rows[address]?.text ?? "") + "\n" }
        if let footer { text += "\u{1B}[2K" + footer + "\n" }
        // A shorter table than last time leaves old lines below: clear them.
        let lines = shown.count + (footer == nil ? 0 : 1)
        if drawnLines > lines { text += String(repeating: "\u{1B}[2K\n", count: drawnLines - lines) + "\u{1B}[\(drawnLines - lines)A" }
        drawnLines = lines
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func terminalRows() -> Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0 else { return 24 }
        return Int(size.ws_row)
    }
}
