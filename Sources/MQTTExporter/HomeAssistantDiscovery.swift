import BLECore
import BridgeConfiguration
import Foundation
import Sensors

/// Who the bridge is, as Home Assistant's device registry shows it.
public struct MQTTDeviceIdentity: Sendable, Equatable {
    /// The GAP device name (the device's name in Home Assistant).
    public var name: String
    /// Stable across restarts: the random static address kept in the state directory, or the
    /// fixed/public one, without colons; the device name as a topic level when there is none.
    public var identifier: String
    public var model: String
    public var manufacturer: String
    public var softwareVersion: String

    public init(name: String, identifier: String, model: String, manufacturer: String, softwareVersion: String = ProductVersion.current) {
        self.name = name
        self.identifier = identifier
        self.model = model
        self.manufacturer = manufacturer
        self.softwareVersion = softwareVersion
    }

    /// `address` as `blesensor status` shows it (`C0:11:22:33:44:55 (random static)`): its
    /// twelve hex digits in lower case, else the device name as a topic level.
    public static func identifier(address: String, deviceName: String) -> String {
        if let address = BluetoothAddress(String(address.prefix(17))) {
            return address.description.lowercased().filter { $0 != ":" }
        }
        return MQTTSettings.topicLevel(deviceName)
    }
}

/// What one entity needs besides its config: where its state goes and how a reading becomes a payload.
public struct MQTTEntity: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case measurement(Quantity)
        /// The sensor's fault: a binary_sensor, `ON` while failed.
        case problem
    }

    public var sensor: String
    public var kind: Kind
    public var uniqueID: String
    public var configTopic: String
    public var stateTopic: String
    /// The retained discovery config (JSON).
    public var config: String
}

/// Home Assistant MQTT discovery: one sensor per quantity of each exported sensor, and one
/// binary_sensor (problem, diagnostic) per sensor.
public enum HomeAssistantDiscovery {
    /// HA marks a value unavailable when no new one came for this long: three polls, at least 30 s,
    /// so a slow sensor or a broker hiccup does not blank it.
    public static func expireAfter(pollInterval: Duration) -> Int {
        let threePolls = Double((pollInterval * 3).saturatingNanoseconds) / 1e9
        return max(30, Int(threePolls.rounded(.up)))
    }

    public static func entities(sensors: [SensorConfiguration], device: MQTTDeviceIdentity, topics: MQTTTopics) -> [MQTTEntity] {
        var entities: [MQTTEntity] = []
        let deviceJSON = Device(identifiers: ["blesensor_\(device.identifier)"], name: device.name, model: device.model,
                                manufacturer: device.manufacturer, sw_version: device.softwareVersion)
        for sensor in sensors {
            let level = MQTTSettings.topicLevel(sensor.name)
            for quantity in Quantity.allCases where sensor.driver.quantities.contains(quantity) {
                let kind = QuantityKind(quantity, temperatureUnit: sensor.unit)
                let object = "\(level)_\(quantity.rawValue.replacingOccurrences(of: "-", with: "_"))"
                let uniqueID = "blesensor_\(device.identifier)_\(object)"
                let stateTopic = topics.state(sensor: sensor.name, quantity: quantity)
                let config = Config(name: "\(sensor.name) \(kind.label)", unique_id: uniqueID, state_topic: stateTopic,
                                    availability_topic: topics.availability, device: deviceJSON,
                                    device_class: kind.deviceClass, unit_of_measurement: kind.unit, state_class: "measurement",
                                    expire_after: expireAfter(pollInterval: sensor.pollInterval), icon: kind.icon,
                                    suggested_display_precision: kind.decimals)
                entities.append(MQTTEntity(sensor: sensor.name, kind: .measurement(quantity), uniqueID: uniqueID,
                                           configTopic: topics.config(component: "sensor", object: object),
                                           stateTopic: stateTopic, config: encode(config)))
            }
            let object = "\(level)_problem"
            let uniqueID = "blesensor_\(device.identifier)_\(object)"
            let stateTopic = topics.problem(sensor: sensor.name)
            let config = Config(name: "\(sensor.name) problem", unique_id: uniqueID, state_topic: stateTopic,
                                availability_topic: topics.availability, device: deviceJSON, device_class: "problem",
                                entity_category: "diagnostic", payload_on: "ON", payload_off: "OFF")
            entities.append(MQTTEntity(sensor: sensor.name, kind: .problem, uniqueID: uniqueID,
                                       configTopic: topics.config(component: "binary_sensor", object: object),
                                       stateTopic: stateTopic, config: encode(config)))
        }
        return entities
    }

    /// A reading as the state payload: in the unit the config announces (hPa for pressure), with a
    /// fixed number of decimals.
    public static func statePayload(quantity: Quantity, value: Double) -> String {
        let kind = QuantityKind(quantity, temperatureUnit: .celsius)
        return String(format: "%.*f", kind.decimals, value * kind.scale)
    }

    /// What Home Assistant calls each quantity. Heart rate and SpO2 have no device class: an icon.
    struct QuantityKind {
        var label: String
        var deviceClass: String?
        var unit: String
        var icon: String?
        var scale = 1.0
        var decimals: Int

        init(_ quantity: Quantity, temperatureUnit: TemperatureUnit) {
            switch quantity {
            case .temperature: self.init(label: "temperature", deviceClass: "temperature", unit: temperatureUnit.symbol, decimals: 2)
            case .humidity: self.init(label: "humidity", deviceClass: "humidity", unit: "%", decimals: 1)
            case .pressure: self.init(label: "pressure", deviceClass: "atmospheric_pressure", unit: "hPa", scale: 0.01, decimals: 2)
            case .batteryLevel: self.init(label: "battery", deviceClass: "battery", unit: "%", decimals: 0)
            case .heartRate: self.init(label: "heart rate", unit: "bpm", icon: "mdi:heart-pulse", decimals: 0)
            case .oxygenSaturation: self.init(label: "SpO2", unit: "%", icon: "mdi:lungs", decimals: 0)
            }
        }

        init(label: String, deviceClass: String? = nil, unit: String, icon: String? = nil, scale: Double = 1, decimals: Int) {
            self.label = label
            self.deviceClass = deviceClass
            self.unit = unit
            self.icon = icon
            self.scale = scale
            self.decimals = decimals
        }
    }

    // Field names are Home Assistant's keys; nil ones are left out of the JSON.
    struct Device: Encodable, Equatable {
        var identifiers: [String]
        var name: String
        var model: String
        var manufacturer: String
        var sw_version: String
    }

    struct Config: Encodable {
        var name: String
        var unique_id: String
        var state_topic: String
        var availability_topic: String
        var payload_available = "online"
        var payload_not_available = "offline"
        var device: Device
        var device_class: String?
        var unit_of_measurement: String?
        var state_class: String?
        var expire_after: Int?
        var icon: String?
        var suggested_display_precision: Int?
        var entity_category: String?
        var payload_on: String?
        var payload_off: String?
        var origin = Origin()

        init(name: String, unique_id: String, state_topic: String, availability_topic: String, device: Device,
             device_class: String? = nil, unit_of_measurement: String? = nil, state_class: String? = nil,
             expire_after: Int? = nil, icon: String? = nil, suggested_display_precision: Int? = nil,
             entity_category: String? = nil, payload_on: String? = nil, payload_off: String? = nil) {
            self.name = name
            self.unique_id = unique_id
            self.state_topic = state_topic
            self.availability_topic = availability_topic
            self.device = device
            self.device_class = device_class
            self.unit_of_measurement = unit_of_measurement
            self.state_class = state_class
            self.expire_after = expire_after
            self.icon = icon
            self.suggested_display_precision = suggested_display_precision
            self.entity_category = entity_category
            self.payload_on = payload_on
            self.payload_off = payload_off
        }
    }

    /// Who published the config, shown in Home Assistant's MQTT info.
    struct Origin: Encodable {
        var name = "blesensor"
        var sw_version = ProductVersion.current
    }

    private static func encode(_ config: Config) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings and numbers cannot fail.
        let data = (try? encoder.encode(config)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
