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
}
