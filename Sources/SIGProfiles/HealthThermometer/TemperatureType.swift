/// Temperature Type 0x2A1D (Health Thermometer Service 3.2): where the temperature was taken, uint8 1-9.
public enum TemperatureType: UInt8, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    public static let uuid: UInt16 = 0x2A1D

    case armpit = 1
    case body = 2
    case ear = 3
    case finger = 4
    case gastrointestinalTract = 5
    case mouth = 6
    case rectum = 7
    case toe = 8
    case tympanum = 9

    public init(decoding bytes: [UInt8]) throws(SIGDecodingError) {
        try requireLength(bytes, 1, value: "Temperature Type")
        self = try TemperatureType.from(bytes[0])
    }

    static func from(_ code: UInt8) throws(SIGDecodingError) -> TemperatureType {
        guard let type = TemperatureType(rawValue: code) else {
            throw .reservedValue(field: "temperature type", value: "\(code)", allowed: "1-9")
        }
        return type
    }

    public var encoded: [UInt8] { [rawValue] }

    public var description: String {
        switch self {
        case .armpit: return "Armpit"
        case .body: return "Body (general)"
        case .ear: return "Ear (usually ear lobe)"
        case .finger: return "Finger"
        case .gastrointestinalTract: return "Gastro-intestinal Tract"
        case .mouth: return "Mouth"
        case .rectum: return "Rectum"
        case .toe: return "Toe"
        case .tympanum: return "Tympanum (ear drum)"
        }
    }

    var jsonName: String {
        switch self {
        case .armpit: return "armpit"
        case .body: return "body"
        case .ear: return "ear"
        case .finger: return "finger"
        case .gastrointestinalTract: return "gastro_intestinal_tract"
        case .mouth: return "mouth"
        case .rectum: return "rectum"
        case .toe: return "toe"
        case .tympanum: return "tympanum"
        }
    }
}

extension TemperatureType: DescribableValue {
    public var fields: [DescribedField] {
        [DescribedField("temperature_type", "Temperature type", "\(description) (\(rawValue))", .string(jsonName)),
         DescribedField("code", "Code", "\(rawValue)", .int(Int(rawValue)))]
    }
}
