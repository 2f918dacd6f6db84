import BLECore
import TestSupport
@testable import ATT

/// Nordic UART Service UUID, a 128-bit UUID outside the Bluetooth base.
let nus = BluetoothUUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E") ?? BluetoothUUID(0)
/// Its little-endian wire form.
let nusWire = "9e ca dc 24 0e e5 a9 e0 93 f3 a3 b5 01 00 40 6e"

/// One vector per PDU: the value and its octets as laid out in Core v5.4 Vol 3 Part F 3.4.
struct Vector: Sendable, CustomStringConvertible {
    let pdu: ATTPDU
    let bytes: [UInt8]
    var description: String { "\(pdu.opcode)" }
}

func informationData(_ format: ATTUUIDFormat, _ entries: [ATTHandleUUID]) -> ATTInformationData? {
    try? ATTInformationData(format: format, entries: entries)
}

func dataList(_ entries: [ATTHandleValue]) -> ATTAttributeDataList? { try? ATTAttributeDataList(entries) }
func groupList(_ entries: [ATTGroupData]) -> ATTGroupDataList? { try? ATTGroupDataList(entries) }

/// Every PDU of the protocol with a hand-built vector; shared by the robustness tests.
let allVectors: [Vector] = {
    var vectors: [Vector] = [
        Vector(pdu: .errorResponse(requestOpcode: .readRequest, handle: 0x0001, error: .attributeNotFound), bytes: hex("01 0a 01 00 0a")),
        Vector(pdu: .exchangeMTURequest(clientRxMTU: 247), bytes: hex("02 f7 00")),
        Vector(pdu: .exchangeMTUResponse(serverRxMTU: 517), bytes: hex("03 05 02")),
        Vector(pdu: .findInformationRequest(startHandle: 0x0001, endHandle: 0xFFFF), bytes: hex("04 01 00 ff ff")),
        Vector(pdu: .findByTypeValueRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: 0x2800, value: [0x0D, 0x18]),
               bytes: hex("06 01 00 ff ff 00 28 0d 18")),
        Vector(pdu: .findByTypeValueResponse([ATTHandlesInformation(foundHandle: 0x10, groupEndHandle: 0x15)]), bytes: hex("07 10 00 15 00")),
        Vector(pdu: .readByTypeRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: BluetoothUUID(0x2803)), bytes: hex("08 01 00 ff ff 03 28")),
        Vector(pdu: .readByTypeRequest(startHandle: 1, endHandle: 0xFFFF, attributeType: nus), bytes: hex("08 01 00 ff ff " + nusWire)),
        Vector(pdu: .readRequest(handle: 0x0003), bytes: hex("0a 03 00")),
        Vector(pdu: .readResponse(value: [0x48, 0x65]), bytes: hex("0b 48 65")),
        Vector(pdu: .readBlobRequest(handle: 0x0003, offset: 0x0016), bytes: hex("0c 03 00 16 00")),
        Vector(pdu: .readBlobResponse(partValue: [0x01, 0x02]), bytes: hex("0d 01 02")),
        Vector(pdu: .readMultipleRequest(handles: [0x0003, 0x0005]), bytes: hex("0e 03 00 05 00")),
        Vector(pdu: .readMultipleResponse(values: [1, 2, 3]), bytes: hex("0f 01 02 03")),
        Vector(pdu: .readByGroupTypeRequest(startHandle: 1, endHandle: 0xFFFF, groupType: BluetoothUUID(0x2800)), bytes: hex("10 01 00 ff ff 00 28")),
        Vector(pdu: .readMultipleVariableRequest(handles: [0x0003, 0x0005]), bytes: hex("20 03 00 05 00")),
        Vector(pdu: .readMultipleVariableResponse([ATTLengthValue(value: [0xAA, 0xBB]), ATTLengthValue(value: [0xCC])]),
               bytes: hex("21 02 00 aa bb 01 00 cc")),
        Vector(pdu: .writeRequest(handle: 0x0003, value: [1, 2]), bytes: hex("12 03 00 01 02")),
        Vector(pdu: .writeResponse, bytes: hex("13")),
        Vector(pdu: .writeCommand(handle: 0x0003, value: [0xFF]), bytes: hex("52 03 00 ff")),
        // The worked example of Core v5.4 Vol 3 Part F 3.4.5.4.
        Vector(pdu: .signedWriteCommand(handle: 0x0012, value: [0x13, 0x37],
                                        signature: ATTAuthenticationSignature(signCounter: 1, mac: 0xF20F_903C_931E_87F1)),
               bytes: hex("d2 12 00 13 37 01 00 00 00 f1 87 1e 93 3c 90 0f f2")),
        Vector(pdu: .prepareWriteRequest(handle: 0x0003, offset: 0x0012, partValue: [1, 2, 3]), bytes: hex("16 03 00 12 00 01 02 03")),
        Vector(pdu: .prepareWriteResponse(handle: 0x0003, offset: 0x0012, partValue: [1, 2, 3]), bytes: hex("17 03 00 12 00 01 02 03")),
        Vector(pdu: .executeWriteRequest(.write), bytes: hex("18 01")),
        Vector(pdu: .executeWriteRequest(.cancel), bytes: hex("18 00")),
        Vector(pdu: .executeWriteResponse, bytes: hex("19")),
        Vector(pdu: .handleValueNotification(handle: 0x0003, value: [0x06, 0x48]), bytes: hex("1b 03 00 06 48")),
        Vector(pdu: .handleValueIndication(handle: 0x0005, value: [0x02, 0x00]), bytes: hex("1d 05 00 02 00")),
        Vector(pdu: .handleValueConfirmation, bytes: hex("1e")),
        Vector(pdu: .multipleHandleValueNotification([ATTHandleValue(handle: 3, value: [0x48]), ATTHandleValue(handle: 5, value: [2, 0])]),
               bytes: hex("23 03 00 01 00 48 05 00 02 00 02 00")),
    ]
    if let data = informationData(.bits16, [ATTHandleUUID(handle: 1, uuid: BluetoothUUID(0x2800)), ATTHandleUUID(handle: 2, uuid: BluetoothUUID(0x2803))]) {
        vectors.append(Vector(pdu: .findInformationResponse(data), bytes: hex("05 01 01 00 00 28 02 00 03 28")))
    }
    if let data = informationData(.bits128, [ATTHandleUUID(handle: 0x10, uuid: nus)]) {
        vectors.append(Vector(pdu: .findInformationResponse(data), bytes: hex("05 02 10 00 " + nusWire)))
    }
    if let list = dataList([ATTHandleValue(handle: 2, value: [0x10, 0x03, 0x00, 0x37, 0x2A]),
                            ATTHandleValue(handle: 4, value: [0x02, 0x05, 0x00, 0x38, 0x2A])]) {
        vectors.append(Vector(pdu: .readByTypeResponse(list), bytes: hex("09 07 02 00 10 03 00 37 2a 04 00 02 05 00 38 2a")))
    }
    if let list = groupList([ATTGroupData(handle: 1, endGroupHandle: 5, value: [0x00, 0x18]),
                             ATTGroupData(handle: 6, endGroupHandle: 9, value: [0x01, 0x18])]) {
        vectors.append(Vector(pdu: .readByGroupTypeResponse(list), bytes: hex("11 06 01 00 05 00 00 18 06 00 09 00 01 18")))
    }
    return vectors
}()

/// Every case of ATTPDU except `.unknown` must appear in `allVectors`; this is checked in a test.
let expectedOpcodeCount = ATTOpcode.allKnown.count
