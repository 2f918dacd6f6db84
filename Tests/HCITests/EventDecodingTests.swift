import TestSupport
import Testing
import BLECore
@testable import HCI

/// Events as controllers send them (Vol 4 Part E 5.4.4 and 7.7). Every vector also re-encodes to
/// the same bytes, which is what the virtual controller relies on.
@Suite struct EventDecodingTests {
    @Test func commandCompleteForReset() throws {
        // The reply to `01 03 0c 00` in every btmon trace.
        let event = try decodeEvent("04 0e 04 01 030c 00")
        #expect(event == .commandComplete(HCICommandCompleteEvent(numHCICommandPackets: 1, opcode: .reset, returnParameters: [0x00])))
        #expect(event.code == HCIEventCode.commandComplete)
        guard case let .commandComplete(complete) = event else { return }
        #expect(try HCIReset.ReturnParameters(decoding: complete.returnParameters).status == .success)
    }

    @Test func commandCompleteKeepsRawReturnParameters() throws {
        let event = try decodeEvent("04 0e 0a 05 0f20 00 fb00 4808 0000")
        guard case let .commandComplete(complete) = event else { Issue.record("\(event)"); return }
        #expect(complete.numHCICommandPackets == 5)
        #expect(complete.opcode == HCIOpcode(rawValue: 0x200F))
        #expect(complete.returnParameters == [0x00, 0xFB, 0x00, 0x48, 0x08, 0x00, 0x00])
        // Opcode 0x0000 with no return parameters: the controller saying it can take commands.
        #expect(try decodeEvent("04 0e 03 01 0000") == .commandComplete(.init(opcode: HCIOpcode(rawValue: 0), returnParameters: [])))
    }

    @Test func commandStatus() throws {
        #expect(try decodeEvent("04 0f 04 00 01 0d20")
                == .commandStatus(HCICommandStatusEvent(status: .success, numHCICommandPackets: 1, opcode: .leCreateConnection)))
        #expect(try decodeEvent("04 0f 04 0c 00 0604")
                == .commandStatus(HCICommandStatusEvent(status: .commandDisallowed, numHCICommandPackets: 0, opcode: .disconnect)))
    }

    @Test func disconnectionComplete() throws {
        #expect(try decodeEvent("04 05 04 00 4000 13")
                == .disconnectionComplete(HCIDisconnectionCompleteEvent(status: .success, handle: 0x0040, reason: .remoteUserTerminated)))
        #expect(try decodeEvent("04 05 04 00 0100 08")
                == .disconnectionComplete(HCIDisconnectionCompleteEvent(handle: 0x0001, reason: .connectionTimeout)))
    }

    @Test func encryptionChangeV1AndV2() throws {
        let v1 = try decodeEvent("04 08 04 00 4000 01")
        #expect(v1 == .encryptionChange(HCIEncryptionChangeEvent(handle: 0x0040, encryptionEnabled: 1)))
        #expect(v1.code == 0x08)
        let v2 = try decodeEvent("04 59 05 00 4000 01 10")
        #expect(v2 == .encryptionChange(HCIEncryptionChangeEvent(handle: 0x0040, encryptionEnabled: 1, keySize: 16)))
        #expect(v2.code == 0x59)
        #expect(try decodeEvent("04 08 04 3d 4000 00")
                == .encryptionChange(HCIEncryptionChangeEvent(status: .terminatedMICFailure, handle: 0x0040, encryptionEnabled: 0)))
    }

    @Test func encryptionChangeLayoutFollowsTheEventCode() throws {
        // A v2 event cut to the v1 length is malformed, not a v1 event.
        #expect(isTruncated(decodingError { () throws(HCIDecodingError) in try HCIEvent(body: [0x59, 0x04, 0x00, 0x40, 0x00, 0x01][...]) }))
        // A v1 event with an extra trailing byte stays v1; the extra byte is not a key size.
        let event = try HCIEvent(body: hex("08 05 00 4000 01 10")[...])
        #expect(event == .encryptionChange(HCIEncryptionChangeEvent(handle: 0x0040, encryptionEnabled: 1, keySize: nil)))
        #expect(event.code == HCIEventCode.encryptionChange)
    }

    @Test func encryptionKeyRefreshComplete() throws {
        #expect(try decodeEvent("04 30 03 00 4000") == .encryptionKeyRefreshComplete(.init(status: .success, handle: 0x0040)))
        #expect(try decodeEvent("04 30 03 06 0200") == .encryptionKeyRefreshComplete(.init(status: .pinOrKeyMissing, handle: 0x0002)))
    }

    @Test func readRemoteVersionComplete() throws {
        // Version 0x0C (5.3), company 0x000F (Broadcom), subversion 0x1234.
        #expect(try decodeEvent("04 0c 08 00 4000 0c 0f00 3412")
                == .readRemoteVersionComplete(.init(handle: 0x0040, version: 0x0C, manufacturer: 0x000F, subversion: 0x1234)))
    }

    @Test func numberOfCompletedPackets() throws {
        // The well-known one-handle form: handle 0x0040, one packet.
        #expect(try decodeEvent("04 13 05 01 4000 0100") == .numberOfCompletedPackets(.init(entries: [.init(handle: 0x0040, completed: 1)])))
        // Several handles, interleaved (handle, count) pairs as Vol 4 Part E 5.2 orders arrayed parameters.
        #expect(try decodeEvent("04 13 0d 03 4000 0100 4100 0200 4200 0003")
                == .numberOfCompletedPackets(.init(entries: [.init(handle: 0x0040, completed: 1), .init(handle: 0x0041, completed: 2),
                                                             .init(handle: 0x0042, completed: 0x0300)])))
        #expect(try decodeEvent("04 13 01 00") == .numberOfCompletedPackets(.init(entries: [])))
        // Reserved top bits of the handle are dropped.
        let masked = try HCIEvent(body: hex("13 05 01 40f0 0100")[...])
        #expect(masked == .numberOfCompletedPackets(.init(entries: [.init(handle: 0x0040, completed: 1)])))
        // The router's shortcut for the one-handle form agrees, and leaves every other form alone.
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("13 05 01 40f0 0100")[...]) == .init(handle: 0x0040, completed: 1))
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("13 05 01 4000 0003")[...]) == .init(handle: 0x0040, completed: 0x0300))
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("13 09 02 4000 0100 4100 0200")[...]) == nil)
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("13 01 00")[...]) == nil)
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("13 06 01 4000 0100 00")[...]) == nil)
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: hex("0e 05 01 4000 0100")[...]) == nil)
        // A slice of a larger buffer, as the transport hands it over (after the H4 indicator).
        let packet = hex("04 13 05 01 4100 0200")
        #expect(HCINumberOfCompletedPacketsEvent.singleEntry(ofEventBody: packet[1...]) == .init(handle: 0x0041, completed: 2))
    }

    @Test func hardwareErrorAndDataBufferOverflow() throws {
        #expect(try decodeEvent("04 10 01 03") == .hardwareError(code: 0x03))
        #expect(try decodeEvent("04 1a 01 01") == .dataBufferOverflow(linkType: 0x01))
    }

    @Test func leConnectionCompleteLegacy() throws {
        let event = try decodeEvent("04 3e 13 01 00 4000 01 01 554433 2211c0 2800 0000 f401 00")
        let expected = LEConnectionCompleteEvent(form: .legacy, handle: 0x0040, role: .peripheral,
                                                 peer: DeviceAddress(try address("C0:11:22:33:44:55"), type: .randomDevice),
                                                 interval: 0x0028, latency: 0, supervisionTimeout: 0x01F4)
        #expect(event == .le(.connectionComplete(expected)))
        #expect(event.code == 0x3E)
        guard case let .le(meta) = event else { return }
        #expect(meta.subeventCode == 0x01)
    }

    @Test func leEnhancedConnectionComplete() throws {
        let event = try decodeEvent("04 3e 1f 0a 00 4000 00 02 665544 332211 0c0b0a 090807 f6f5f4 f3f2f1 1800 0400 c800 05")
        let expected = LEConnectionCompleteEvent(
            form: .enhanced, handle: 0x0040, role: .central,
            peer: DeviceAddress(try address("11:22:33:44:55:66"), type: .publicIdentity),
            localResolvablePrivateAddress: try address("07:08:09:0A:0B:0C"),
            peerResolvablePrivateAddress: try address("F1:F2:F3:F4:F5:F6"),
            interval: 0x0018, latency: 4, supervisionTimeout: 0x00C8, centralClockAccuracy: 5)
        #expect(event == .le(.connectionComplete(expected)))
        guard case let .le(meta) = event else { return }
        #expect(meta.subeventCode == 0x0A)
    }

    @Test func leEnhancedConnectionCompleteV2() throws {
        let event = try decodeEvent("04 3e 22 29 00 4000 01 00 665544 332211 000000 000000 000000 000000 0600 0000 4800 00 02 ffff")
        let expected = LEConnectionCompleteEvent(
            form: .enhancedV2(advertisingHandle: 2, syncHandle: 0xFFFF), handle: 0x0040, role: .peripheral,
            peer: DeviceAddress(try address("11:22:33:44:55:66"), type: .publicDevice),
            interval: 6, latency: 0, supervisionTimeout: 0x48)
        #expect(event == .le(.connectionComplete(expected)))
        guard case let .le(meta) = event else { return }
        #expect(meta.subeventCode == 0x29)
    }

    @Test func leConnectionCompleteFailureWithOddFieldsStillDecodes() throws {
        // A failed connection (0x3E) may carry values the success path never sees.
        let event = try HCIEvent(body: hex("3e 13 01 3e 0000 ff 07 000000000000 0000 0000 0000 00")[...])
        guard case let .le(.connectionComplete(complete)) = event else { Issue.record("\(event)"); return }
        #expect(complete.status == .failedToEstablish)
        #expect(complete.form == .legacy)
    }

    @Test func leAdvertisingReportWithSeveralEntries() throws {
        let event = try decodeEvent("04 3e 19 02 02" + " 00 01 554433 2211c0 03 020106 c5" + " 04 00 ab8967 452301 00 7f")
        let first = LEAdvertisingReport(eventType: .advInd, address: DeviceAddress(try address("C0:11:22:33:44:55"), type: .randomDevice),
                                        data: [0x02, 0x01, 0x06], rssi: -59)
        let second = LEAdvertisingReport(eventType: .scanResponse, address: DeviceAddress(try address("01:23:45:67:89:AB"), type: .publicDevice),
                                         data: [], rssi: 127)
        #expect(event == .le(.advertisingReport(LEAdvertisingReportEvent(reports: [first, second]))))
        let full = try decodeEvent("04 3e 2b 02 01 03 01 554433 2211c0 1f" + String(repeating: "aa", count: 31) + " d0")
        guard case let .le(.advertisingReport(report)) = full else { Issue.record("\(full)"); return }
        #expect(report.reports.first?.data.count == 31)
        #expect(report.reports.first?.eventType == .advNonconnInd)
        #expect(report.reports.first?.rssi == -48)
    }

    @Test func leAdvertisingReportRejectsOutOfRangeFields() throws {
        func error(_ parametersHex: String) throws -> HCIDecodingError? {
            let parameters = hex("02 01" + parametersHex)
            let body = [HCIEventCode.leMeta, UInt8(parameters.count)] + parameters
            return decodingError { () throws(HCIDecodingError) in try HCIEvent(body: body[...]) }
        }
        #expect(isInvalidValue(try error("05 00 000000000000 00 7f"), field: "event type", value: 5))
        #expect(isInvalidValue(try error("00 04 000000000000 00 7f"), field: "address type", value: 4))
        #expect(isInvalidValue(try error("00 00 000000000000 20" + String(repeating: "00", count: 32) + "7f"), field: "data length", value: 32))
        // Data_Length longer than what follows is truncation, not an out-of-bounds read.
        #expect(isTruncated(try error("00 00 000000000000 1f 0102 7f")))
    }

    @Test func leConnectionUpdateComplete() throws {
        #expect(try decodeEvent("04 3e 0a 03 00 4000 0600 0000 f401")
                == .le(.connectionUpdateComplete(.init(handle: 0x0040, interval: 6, latency: 0, supervisionTimeout: 0x01F4))))
        #expect(try decodeEvent("04 3e 0a 03 3b 4000 0000 0000 0000")
                == .le(.connectionUpdateComplete(.init(status: .unacceptableConnectionParameters, handle: 0x0040,
                                                       interval: 0, latency: 0, supervisionTimeout: 0))))
    }

    @Test func leLongTermKeyRequest() throws {
        #expect(try decodeEvent("04 3e 0d 05 4000 0807060504030201 3412")
                == .le(.longTermKeyRequest(.init(handle: 0x0040, random: 0x0102_0304_0506_0708, ediv: 0x1234))))
        // LE Secure Connections: Rand and EDIV are zero.
        #expect(try decodeEvent("04 3e 0d 05 0100 0000000000000000 0000")
                == .le(.longTermKeyRequest(.init(handle: 0x0001, random: 0, ediv: 0))))
    }

    @Test func leRemoteConnectionParameterRequest() throws {
        let expected = LERemoteConnectionParameterRequestEvent(
            handle: 0x0040, parameters: LEConnectionParameters(intervalMin: 6, intervalMax: 12, latency: 0, supervisionTimeout: 0x01F4))
        #expect(try decodeEvent("04 3e 0b 06 4000 0600 0c00 0000 f401") == .le(.remoteConnectionParameterRequest(expected)))
    }

    @Test func leDataLengthChange() throws {
        #expect(try decodeEvent("04 3e 0b 07 4000 fb00 4808 1b00 4801")
                == .le(.dataLengthChange(.init(handle: 0x0040, maxTxOctets: 251, maxTxTime: 2120, maxRxOctets: 27, maxRxTime: 328))))
    }

    @Test func unknownEventsKeepTheirParameters() throws {
        #expect(try decodeEvent("04 ff 03 010203") == .unknown(code: 0xFF, parameters: [1, 2, 3]))
        #expect(try decodeEvent("04 03 00") == .unknown(code: 0x03, parameters: []))
        let unknownLE = try decodeEvent("04 3e 04 0d 010203")
        #expect(unknownLE == .le(.unknown(subevent: 0x0D, parameters: [1, 2, 3])))
        // LE Read Remote Features Complete is enabled in the mask but handled raw.
        #expect(try decodeEvent("04 3e 0c 04 00 4000 0100000000000000")
                == .le(.unknown(subevent: 0x04, parameters: [0x00, 0x40, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0])))
        guard case let .le(meta) = unknownLE else { return }
        #expect(meta.subeventCode == 0x0D)
    }

    @Test func encodedEventsDecodeToThemselves() throws {
        let peer = DeviceAddress(try address("C0:11:22:33:44:55"), type: .randomIdentity)
        let events: [HCIEvent] = [
            .commandComplete(.init(numHCICommandPackets: 2, opcode: .leReadMaximumDataLength,
                                   returnParameters: HCIMaximumDataLengthReturn(tx: .maximum, rx: .minimum).encoded)),
            .commandStatus(.init(status: .controllerBusy, opcode: .leConnectionUpdate)),
            .disconnectionComplete(.init(status: .success, handle: 0x0EFF, reason: .localHostTerminated)),
            .encryptionChange(.init(handle: 3, encryptionEnabled: 1)),
            .encryptionChange(.init(handle: 3, encryptionEnabled: 1, keySize: 7)),
            .encryptionKeyRefreshComplete(.init(handle: 3)),
            .readRemoteVersionComplete(.init(handle: 3, version: 0x0D, manufacturer: 0x0059, subversion: 1)),
            .numberOfCompletedPackets(.init(entries: (0..<10).map { .init(handle: UInt16($0), completed: UInt16($0) * 3) })),
            .hardwareError(code: 0xFF),
            .dataBufferOverflow(linkType: 0x00),
            .le(.connectionComplete(.init(form: .legacy, handle: 1, role: .central, peer: peer, interval: 6, latency: 1, supervisionTimeout: 10))),
            .le(.connectionComplete(.init(form: .enhanced, handle: 1, role: .peripheral, peer: peer, interval: 6, latency: 1, supervisionTimeout: 10))),
            .le(.connectionComplete(.init(form: .enhancedV2(advertisingHandle: 0xEF, syncHandle: 0x0ABC), handle: 1, role: .central,
                                          peer: peer, interval: 6, latency: 1, supervisionTimeout: 10, centralClockAccuracy: 7))),
            .le(.advertisingReport(.init(reports: []))),
            .le(.connectionUpdateComplete(.init(handle: 9, interval: 0x0C80, latency: 499, supervisionTimeout: 0x0C80))),
            .le(.longTermKeyRequest(.init(handle: 9, random: .max, ediv: .max))),
            .le(.remoteConnectionParameterRequest(.init(handle: 9, parameters: LEConnectionParameters()))),
            .le(.dataLengthChange(.init(handle: 9, maxTxOctets: 27, maxTxTime: 328, maxRxOctets: 251, maxRxTime: 17040))),
            .le(.unknown(subevent: 0x3F, parameters: [UInt8](repeating: 0x55, count: 200))),
            .unknown(code: 0x57, parameters: [0x01, 0x00]),
        ]
        for event in events {
            let packet = event.packet
            #expect(packet.type == .event)
            #expect(Int(packet.h4Bytes[2]) == packet.h4Bytes.count - 3, "length field of \(event)")
            #expect(try HCIEvent(body: packet.body) == event)
        }
    }
}
