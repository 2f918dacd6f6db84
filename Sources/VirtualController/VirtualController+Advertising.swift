import BLECore
import Dispatch
import HCI

/// Legacy advertising and scanning (radio queue).
extension VirtualController: RadioScanner {
    /// High duty cycle directed advertising gives up after 1.28 s (Vol 6 Part B 4.4.2.4.3).
    static let highDutyDirectedTimeout = DispatchTimeInterval.milliseconds(1280)

    func ownAddress(_ type: AddressType) -> DeviceAddress? {
        // Without a resolving list, the RPA types fall back to the identity address (Vol 4 Part E 7.8.5).
        if type.isRandom {
            guard let randomAddress else { return nil }
            return DeviceAddress(randomAddress, type: .randomDevice)
        }
        return DeviceAddress(configuration.address, type: .publicDevice)
    }

    func currentAdvertisement() -> Advertisement? {
        guard isAdvertising, let address = ownAddress(advertisingParameters.ownAddressType) else { return nil }
        let type = advertisingParameters.type
        let directed = type == .connectableDirectedHighDuty || type == .connectableDirectedLowDuty
        let eventType: LEAdvertisingReport.EventType
        switch type {
        case .connectableUndirected: eventType = .advInd
        case .connectableDirectedHighDuty, .connectableDirectedLowDuty: eventType = .advDirectInd
        case .scannableUndirected: eventType = .advScanInd
        case .nonConnectableUndirected: eventType = .advNonconnInd
        }
        return Advertisement(
            source: ObjectIdentifier(self), eventType: eventType, address: address,
            data: directed ? [] : advertisingData,
            scanResponse: type.isScannable ? scanResponseData : nil,
            target: directed ? DeviceAddress(advertisingParameters.peerAddress, type: advertisingParameters.peerAddressType) : nil,
            isConnectable: type.isConnectable && links.count + reservedHandles.count < configuration.maxConnections)
    }

    func setAdvertisingParameters(_ command: HCILESetAdvertisingParameters) -> HCIStatus {
        guard !isAdvertising else { return .commandDisallowed }
        if command.type != .connectableDirectedHighDuty {
            guard (0x0020...0x4000).contains(command.intervalMin), (0x0020...0x4000).contains(command.intervalMax),
                  command.intervalMin <= command.intervalMax else { return .invalidParameters }
        }
        guard command.channelMap & 0x07 != 0, command.channelMap <= 0x07, command.filterPolicy <= 0x03 else {
            return .invalidParameters
        }
        advertisingParameters = command
        return .success
    }

    func setAdvertisingEnable(_ command: HCILESetAdvertisingEnable) {
        guard command.enable else {
            stopAdvertising()
            commandComplete(.leSetAdvertisingEnable, [HCIStatus.success.rawValue])
            return
        }
        if isAdvertising {
            // Enabling again has no effect on legacy advertising.
            commandComplete(.leSetAdvertisingEnable, [HCIStatus.success.rawValue])
            return
        }
        // A controller whose states lack advertising beside a peripheral link refuses it.
        if !configuration.advertisesWhileConnected, links.values.contains(where: { $0.peripheral === self }) {
            advertisingEnablesRefusedValue += 1
            commandComplete(.leSetAdvertisingEnable, [HCIStatus.commandDisallowed.rawValue])
            return
        }
        // Vol 4 Part E 7.8.9: a random own address needs LE Set Random Address first.
        guard ownAddress(advertisingParameters.ownAddressType) != nil else {
            commandComplete(.leSetAdvertisingEnable, [HCIStatus.invalidParameters.rawValue])
            return
        }
        isAdvertising = true
        commandComplete(.leSetAdvertisingEnable, [HCIStatus.success.rawValue])
        startAdvertisingTimer()
        if let advertisement = currentAdvertisement() { radio.broadcast(advertisement) }
        radio.advertiserChanged(self)
    }

    private func startAdvertisingTimer() {
        let highDuty = advertisingParameters.type == .connectableDirectedHighDuty
        // High duty directed advertising runs every ≤3.75 ms; 20 ms keeps scanners' logs readable.
        let units = highDuty ? 0x0020 : Int(advertisingParameters.intervalMin)
        let period = DispatchTimeInterval.microseconds(units * 625)
        let timer = DispatchSource.makeTimerSource(queue: radio.queue)
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler { [weak self] in
            guard let self, let advertisement = self.currentAdvertisement() else { return }
            self.radio.broadcast(advertisement)
        }
        timer.resume()
        advertisingTimer = timer
        if highDuty {
            let timeout = DispatchWorkItem { [weak self] in self?.directedAdvertisingTimedOut() }
            directedAdvertisingTimeout = timeout
            radio.queue.asyncAfter(deadline: .now() + Self.highDutyDirectedTimeout, execute: timeout)
        }
    }

    private func directedAdvertisingTimedOut() {
        guard isAdvertising else { return }
        stopAdvertising()
        let peer = DeviceAddress(advertisingParameters.peerAddress, type: advertisingParameters.peerAddressType)
        sendConnectionComplete(status: .advertisingTimeout, handle: 0, role: .peripheral, peer: peer,
                               interval: 0, latency: 0, supervisionTimeout: 0)
    }

    func stopAdvertising() {
        isAdvertising = false
        advertisingTimer?.cancel()
        advertisingTimer = nil
        directedAdvertisingTimeout?.cancel()
        directedAdvertisingTimeout = nil
    }

    /// New data is on the air at once: scanners hear it without waiting for the next interval.
    func advertisingContentChanged() {
        if let advertisement = currentAdvertisement() { radio.broadcast(advertisement) }
    }

    // MARK: - Scanning

    func setScanParameters(_ command: HCILESetScanParameters) -> HCIStatus {
        guard !isScanning else { return .commandDisallowed }
        guard (0x0004...0x4000).contains(command.interval), (0x0004...0x4000).contains(command.window),
              command.window <= command.interval, command.filterPolicy <= 0x03 else { return .invalidParameters }
        scanParameters = command
        return .success
    }

    func setScanEnable(_ command: HCILESetScanEnable) {
        guard command.enable else {
            if isScanning { radio.stopScanning(self) }
            isScanning = false
            commandComplete(.leSetScanEnable, [HCIStatus.success.rawValue])
            return
        }
        if isScanning {
            filterDuplicates = command.filterDuplicates
            commandComplete(.leSetScanEnable, [HCIStatus.success.rawValue])
            return
        }
        guard configuration.scansWhileInitiating || pendingCreate == nil else {
            commandComplete(.leSetScanEnable, [HCIStatus.commandDisallowed.rawValue])
            return
        }
        guard ownAddress(scanParameters.ownAddressType) != nil else {
            commandComplete(.leSetScanEnable, [HCIStatus.invalidParameters.rawValue])
            return
        }
        isScanning = true
        filterDuplicates = command.filterDuplicates
        reportedAdvertisements = []
        commandComplete(.leSetScanEnable, [HCIStatus.success.rawValue])
        radio.startScanning(self)
    }

    var scannerAddresses: [DeviceAddress] {
        var addresses = [DeviceAddress(configuration.address, type: .publicDevice)]
        if let randomAddress { addresses.append(DeviceAddress(randomAddress, type: .randomDevice)) }
        return addresses
    }

    func hear(_ advertisement: Advertisement) {
        guard advertisement.source != ObjectIdentifier(self) else { return }
        report(advertisement.eventType, from: advertisement.address, data: advertisement.data)
        if scanParameters.active, let scanResponse = advertisement.scanResponse {
            report(.scanResponse, from: advertisement.address, data: scanResponse)
        }
    }

    private func report(_ eventType: LEAdvertisingReport.EventType, from address: DeviceAddress, data: [UInt8]) {
        if filterDuplicates {
            let key = ReportKey(address: address, eventType: eventType.rawValue)
            guard !reportedAdvertisements.contains(key) else { return }
            reportedAdvertisements.insert(key)
        }
        let report = LEAdvertisingReport(eventType: eventType, address: address, data: data, rssi: configuration.rssi)
        sendEvent(.le(.advertisingReport(LEAdvertisingReportEvent(reports: [report]))))
    }
}
