import BLECore
import GAP
import HCI

// Finding one device by address: the CLI's way to learn an address's type before connecting.
extension CentralManager {
    /// Scans (actively) until `address` is heard or `timeout` passes; returns its report. Scanning
    /// stops again afterwards unless it was already on.
    public func find(_ address: BluetoothAddress, timeout: Duration) async throws(CentralError) -> Discovery {
        guard currentState == .poweredOn else { throw .notPoweredOn(currentState) }
        let wasScanning = isScanning
        if !wasScanning {
            do { try await gap.startScanning(ScanParameters(active: true)) } catch { throw .scanning(error) }
        }
        let id = registerFinder(for: address)
        let timer = configuration.clock.schedule(after: timeout) { [weak self] in
            Task { await self?.finishFinder(id, with: nil) }
        }
        let found = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Discovery?, Never>) in
                attach(continuation, toFinder: id)
            }
        } onCancel: {
            Task { await self.finishFinder(id, with: nil) }
        }
        timer.cancel()
        if !wasScanning { await stopScan() }
        guard let found else { throw .notFound(address, seconds: Double(timeout.components.seconds)) }
        return found
    }

    // MARK: Finders (see `find`)

    func registerFinder(for address: BluetoothAddress) -> Int {
        nextFinder += 1
        finders[nextFinder] = (address, nil, nil)
        return nextFinder
    }

    /// A finder's result may come before its continuation is attached (the report was quick).
    func attach(_ continuation: CheckedContinuation<Discovery?, Never>, toFinder id: Int) {
        guard let finder = finders[id] else { return continuation.resume(returning: nil) }
        if let result = finder.result {
            finders[id] = nil
            return continuation.resume(returning: result)
        }
        finders[id]?.continuation = continuation
    }

    func finishFinder(_ id: Int, with report: Discovery?) {
        guard let finder = finders[id], finder.result == nil else { return }
        if let continuation = finder.continuation {
            finders[id] = nil
            continuation.resume(returning: report)
        } else {
            finders[id]?.result = .some(report)
        }
    }

    func reportToFinders(_ report: Discovery) {
        for (id, finder) in finders where finder.address == report.peer.address && report.kind.isConnectable {
            finishFinder(id, with: report)
        }
    }
}
