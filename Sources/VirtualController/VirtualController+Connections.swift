import BLECore
import HCI

/// Connection setup, teardown, updates, data length and encryption (radio queue).
extension VirtualController: RadioInitiator {
    var version: RemoteVersion {
        RemoteVersion(version: configuration.lmpVersion, manufacturer: configuration.manufacturer, subversion: configuration.lmpSubversion)
    }
    var maxRxDataLength: LEDataLength { .maximum }
    var initialMaxTx: LEDataLength { suggestedDataLength }
    var initiatorTarget: DeviceAddress { pendingCreate?.peer ?? DeviceAddress(.zero, type: .publicDevice) }
    var initiatorAddress: DeviceAddress {
        ownAddress(pendingCreate?.ownAddressType ?? .publicDevice) ?? DeviceAddress(configuration.address, type: .publicDevice)
    }
    var initiatorParameters: LEConnectionParameters { pendingCreate?.parameters ?? LEConnectionParameters() }

    func reserveHandle() -> UInt16? {
        guard links.count + reservedHandles.count < configuration.maxConnections else { return nil }
        // The lowest free handle, as many controllers do: a new link reuses the handle of one that
        // just closed, which is exactly what hosts must survive. Handles are 12 bits; 0x0F00+ is reserved.
        var handle: UInt16 = 0x0001
        while links[handle] != nil || reservedHandles.contains(handle) {
            guard handle < 0x0EFF else { return nil }
            handle += 1
        }
        reservedHandles.insert(handle)
        return handle
    }

    func releaseHandle(_ handle: UInt16) {
        reservedHandles.remove(handle)
    }

    private func adopt(_ link: RadioLink) -> UInt16 {
        let handle = link.handle(of: self)
        reservedHandles.remove(handle)
        links[handle] = link
        return handle
    }

    func connected(_ link: RadioLink) {
        pendingCreate = nil
        let handle = adopt(link)
        sendConnectionComplete(status: .success, handle: handle, role: .central, peer: link.peripheralAddress,
                               interval: link.interval, latency: link.latency, supervisionTimeout: link.supervisionTimeout)
    }

    /// The peripheral side: legacy advertising ends when a connection is made (Vol 6 Part B 4.4.2).
    func acceptedConnection(_ link: RadioLink) {
        stopAdvertising()
        let handle = adopt(link)
        sendConnectionComplete(status: .success, handle: handle, role: .peripheral, peer: link.centralAddress,
                               interval: link.interval, latency: link.latency, supervisionTimeout: link.supervisionTimeout)
    }

    func createConnection(_ command: HCILECreateConnection) -> (HCIStatus, (() -> Void)?) {
        guard pendingCreate == nil else { return (.commandDisallowed, nil) }
        guard configuration.scansWhileInitiating || !isScanning else { return (.commandDisallowed, nil) }
        guard Self.isValid(command.parameters), command.scanWindow <= command.scanInterval,
              ownAddress(command.ownAddressType) != nil else { return (.invalidParameters, nil) }
        guard links.count + reservedHandles.count < configuration.maxConnections else { return (.connectionLimitExceeded, nil) }
        if links.values.contains(where: { $0.peerAddress(of: self) == command.peer }) { return (.connectionAlreadyExists, nil) }
        return (.success, {
            self.pendingCreate = command
            self.radio.startInitiating(self)
        })
    }

    func cancelCreateConnection() {
        guard let pending = pendingCreate else {
            commandComplete(.leCreateConnectionCancel, [HCIStatus.commandDisallowed.rawValue])
            return
        }
        radio.stopInitiating(self)
        pendingCreate = nil
        commandComplete(.leCreateConnectionCancel, [HCIStatus.success.rawValue])
        sendConnectionComplete(status: .unknownConnectionIdentifier, handle: 0, role: .central, peer: pending.peer,
                               interval: 0, latency: 0, supervisionTimeout: 0)
    }

    /// Reasons the Disconnect command accepts (Vol 4 Part E 7.1.6).
    static let disconnectReasons: Set<UInt8> = [0x05, 0x13, 0x14, 0x15, 0x1A, 0x29, 0x3B]

    func disconnect(_ command: HCIDisconnect) -> (HCIStatus, (() -> Void)?) {
        guard let link = links[command.handle] else { return (.unknownConnectionIdentifier, nil) }
        guard Self.disconnectReasons.contains(command.reason.rawValue) else { return (.invalidParameters, nil) }
        return (.success, { self.radio.terminate(link, initiator: self, reason: command.reason) })
    }

    func readRemoteVersion(_ command: HCIReadRemoteVersionInformation) -> (HCIStatus, (() -> Void)?) {
        guard let link = links[command.handle] else { return (.unknownConnectionIdentifier, nil) }
        return (.success, {
            let peer = link.peer(of: self).version
            self.sendEvent(.readRemoteVersionComplete(HCIReadRemoteVersionCompleteEvent(
                handle: command.handle, version: peer.version, manufacturer: peer.manufacturer, subversion: peer.subversion)))
        })
    }

    func connectionUpdate(_ command: HCILEConnectionUpdate) -> (HCIStatus, (() -> Void)?) {
        guard let link = links[command.handle] else { return (.unknownConnectionIdentifier, nil) }
        guard Self.isValid(command.parameters) else { return (.invalidParameters, nil) }
        guard link.pendingParameterRequest == nil else { return (.commandDisallowed, nil) }
        return (.success, {
            if link.isCentral(self) {
                link.apply(command.parameters)
                self.linkParametersUpdated(link)
                link.peer(of: self).linkParametersUpdated(link)
            } else {
                // A peripheral asks the central (Connection Parameters Request procedure, Vol 6 Part B 5.1.7).
                link.pendingParameterRequest = command.parameters
                link.central.linkParametersRequested(link, command.parameters)
            }
        })
    }

    /// The central side of the Connection Parameters Request procedure: ask the host.
    func linkParametersRequested(_ link: RadioLink, _ parameters: LEConnectionParameters) {
        let event = HCIEvent.le(.remoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent(
            handle: link.handle(of: self), parameters: parameters)))
        if isEnabled(event) {
            sendEvent(event)
        } else {
            // Vol 4 Part E 7.7.65.6: with the event masked the controller rejects on the host's behalf.
            _ = answerParameterRequest(handle: link.handle(of: self), accepted: nil, reason: .unsupportedRemoteFeature)
        }
    }

    /// The central host's reply; `accepted == nil` is the negative reply with `reason`.
    func answerParameterRequest(handle: UInt16, accepted: LEConnectionParameters?, reason: HCIStatus) -> HCIStatus {
        guard let link = links[handle] else { return .unknownConnectionIdentifier }
        guard link.isCentral(self), link.pendingParameterRequest != nil else { return .commandDisallowed }
        link.pendingParameterRequest = nil
        radio.queue.async {
            guard link.isUp else { return }
            if let accepted {
                link.apply(accepted)
                self.linkParametersUpdated(link)
                link.peripheral.linkParametersUpdated(link)
            } else {
                link.peripheral.sendEvent(.le(.connectionUpdateComplete(LEConnectionUpdateCompleteEvent(
                    status: reason, handle: link.peripheralHandle, interval: link.interval, latency: link.latency,
                    supervisionTimeout: link.supervisionTimeout))))
            }
        }
        return .success
    }

    func linkParametersUpdated(_ link: RadioLink) {
        sendEvent(.le(.connectionUpdateComplete(LEConnectionUpdateCompleteEvent(
            handle: link.handle(of: self), interval: link.interval, latency: link.latency, supervisionTimeout: link.supervisionTimeout))))
    }

    func link(_ link: RadioLink, disconnectedWith reason: HCIStatus) {
        let handle = link.handle(of: self)
        guard links.removeValue(forKey: handle) != nil else { return }
        // Buffered packets die with the link and are not reported: the host reclaims them itself.
        buffered[handle] = nil
        batchPending[handle] = nil
        reassemblers[handle] = nil
        sendEvent(.disconnectionComplete(HCIDisconnectionCompleteEvent(handle: handle, reason: reason)))
        // A peripheral that lost a link may be connectable again for pending initiators.
        radio.advertiserChanged(self)
    }

    // MARK: - Data length

    func setDataLength(_ command: HCILESetDataLength) {
        guard let link = links[command.handle] else {
            commandComplete(.leSetDataLength, HCIHandleReturn(status: .unknownConnectionIdentifier, handle: command.handle).encoded)
            return
        }
        let requested = LEDataLength(octets: command.txOctets, time: command.txTime)
        guard Self.isValidDataLength(requested) else {
            commandComplete(.leSetDataLength, HCIHandleReturn(status: .invalidParameters, handle: command.handle).encoded)
            return
        }
        if link.isCentral(self) { link.centralMaxTx = requested } else { link.peripheralMaxTx = requested }
        commandComplete(.leSetDataLength, HCIHandleReturn(status: .success, handle: command.handle).encoded)
        let ours = link.dataLengths(of: self)
        self.link(link, dataLengthChangedTo: ours.tx, rx: ours.rx)
        let peer = link.peer(of: self)
        let theirs = link.dataLengths(of: peer)
        peer.link(link, dataLengthChangedTo: theirs.tx, rx: theirs.rx)
    }

    func link(_ link: RadioLink, dataLengthChangedTo tx: LEDataLength, rx: LEDataLength) {
        sendEvent(.le(.dataLengthChange(LEDataLengthChangeEvent(
            handle: link.handle(of: self), maxTxOctets: tx.octets, maxTxTime: tx.time, maxRxOctets: rx.octets, maxRxTime: rx.time))))
    }

    // MARK: - Encryption

    func enableEncryption(_ command: HCILEEnableEncryption) -> (HCIStatus, (() -> Void)?) {
        guard let link = links[command.handle] else { return (.unknownConnectionIdentifier, nil) }
        // Only the central starts encryption, one procedure at a time (Vol 4 Part E 7.8.24).
        guard link.isCentral(self), link.pendingEncryption == nil else { return (.commandDisallowed, nil) }
        return (.success, {
            link.pendingEncryption = PendingEncryption(longTermKey: command.longTermKey, random: command.random, ediv: command.ediv)
            link.peripheral.requestLongTermKey(link)
        })
    }

    /// The peripheral side of encryption start: ask the host for the key.
    func requestLongTermKey(_ link: RadioLink) {
        guard let pending = link.pendingEncryption else { return }
        let event = HCIEvent.le(.longTermKeyRequest(LELongTermKeyRequestEvent(
            handle: link.peripheralHandle, random: pending.random, ediv: pending.ediv)))
        if isEnabled(event) {
            sendEvent(event)
        } else {
            // A host that masked the request cannot answer; the controller rejects on its behalf.
            _ = longTermKeyReply(handle: link.peripheralHandle, key: nil)
        }
    }

    /// Handles the peripheral host's reply; `key == nil` is the negative reply.
    func longTermKeyReply(handle: UInt16, key: [UInt8]?) -> HCIStatus {
        guard let link = links[handle] else { return .unknownConnectionIdentifier }
        guard !link.isCentral(self), let pending = link.pendingEncryption else { return .commandDisallowed }
        link.pendingEncryption = nil
        // The follow-up runs after the Command Complete has been queued.
        radio.queue.async { self.finishEncryption(link, offered: pending.longTermKey, reply: key) }
        return .success
    }

    private func finishEncryption(_ link: RadioLink, offered: [UInt8], reply: [UInt8]?) {
        guard link.isUp else { return }
        guard let reply else {
            link.central.link(link, encryptionFinished: .pinOrKeyMissing, refresh: false)
            return
        }
        guard reply == offered else {
            // Different keys give different session keys: the first packet fails its MIC check.
            radio.terminate(link, initiator: nil, reason: .terminatedMICFailure)
            return
        }
        let refresh = link.isEncrypted
        link.isEncrypted = true
        self.link(link, encryptionFinished: .success, refresh: refresh)
        link.central.link(link, encryptionFinished: .success, refresh: refresh)
    }

    func link(_ link: RadioLink, encryptionFinished status: HCIStatus, refresh: Bool) {
        let handle = link.handle(of: self)
        if status.isSuccess && refresh {
            sendEvent(.encryptionKeyRefreshComplete(HCIEncryptionKeyRefreshCompleteEvent(handle: handle)))
        } else {
            sendEncryptionChange(status: status, handle: handle, enabled: status.isSuccess || link.isEncrypted)
        }
    }
}
