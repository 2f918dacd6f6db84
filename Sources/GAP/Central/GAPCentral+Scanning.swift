import BLECore
import HCI

/// Scanning: callers change what is wanted; `applyScanState` moves the controller toward it, inside
/// a command sequence so that scan changes and connection starts never interleave across awaits.
extension GAPCentral {
    /// Starts scanning (or changes how), forgetting what earlier scans reported. Reports come as
    /// `.scanReport` events.
    public func startScanning(_ parameters: ScanParameters) async throws(GAPError) {
        guard started else { throw .notStarted }
        try parameters.validate()
        wantedScan = parameters
        scanCache.removeAll()
        do {
            try await inCommandSequence { () async throws(GAPError) in try await self.applyScanState() }
        } catch {
            wantedScan = nil
            throw error
        }
    }

    /// Stops scanning; returns once the controller has stopped (or failed to).
    public func stopScanning() async throws(GAPError) {
        wantedScan = nil
        try await inCommandSequence { () async throws(GAPError) in try await self.applyScanState() }
    }

    public var isScanning: Bool { wantedScan != nil }

    /// One command at a time toward what is wanted: disable first when the parameters change or
    /// scanning is no longer wanted (the controller refuses new parameters while scanning).
    func applyScanState() async throws(GAPError) {
        guard controllerReady else { return }
        let wanted = scanPaused ? nil : wantedScan
        do {
            if controllerScanning, wanted != appliedScan {
                _ = try await host.send(HCILESetScanEnable(enable: false))
                controllerScanning = false
            }
            guard let wanted, !controllerScanning else { return }
            if appliedScan != wanted {
                appliedScan = nil
                _ = try await host.send(wanted.command)
                appliedScan = wanted
            }
            _ = try await host.send(HCILESetScanEnable(enable: true, filterDuplicates: wanted.controllerFiltersDuplicates))
            controllerScanning = true
        } catch {
            throw .controller(error)
        }
    }

    /// After a reset or a connection attempt: scanning comes back, or is reported off.
    func resumeScanningInBackground() {
        guard wantedScan != nil else { return }
        Task { await self.resumeScanning() }
    }

    func resumeScanning() async {
        do {
            try await inCommandSequence { () async throws(GAPError) in try await self.applyScanState() }
        } catch {
            logger.error("scanning could not be resumed: \(error)")
            wantedScan = nil
            eventSink.yield(.scanningFailed(error))
        }
    }

    func receive(_ event: LEAdvertisingReportEvent) {
        // Reports still in flight after a stop are not wanted.
        guard let scan = wantedScan else { return }
        for report in event.reports {
            if let discovery = scanCache.process(report, filterDuplicates: scan.filterDuplicates) {
                eventSink.yield(.scanReport(discovery))
            }
        }
    }

    /// Runs `body` once no other command sequence runs (FIFO-ish; the actor is reentrant at awaits).
    func inCommandSequence(_ body: () async throws(GAPError) -> Void) async throws(GAPError) {
        while commandSequenceRunning {
            await withCheckedContinuation { commandSequenceWaiters.append($0) }
        }
        commandSequenceRunning = true
        defer {
            commandSequenceRunning = false
            if !commandSequenceWaiters.isEmpty { commandSequenceWaiters.removeFirst().resume() }
        }
        try await body()
    }
}
