import ControlSocket

/// Something that sends the readings off the device besides GATT: the MQTT publisher, the BTHome
/// broadcaster, the Prometheus endpoint. The daemon starts it after the bridge and stops it before.
public protocol SensorExporter: AnyObject, Sendable {
    /// Begins work (connects, binds, advertises). Runs on a dedicated thread, so it may block
    /// briefly; a failure is not thrown but shown by `status()` and the log, and the daemon keeps
    /// serving the sensors over Bluetooth.
    func start()
    /// Ends work and releases what `start` took. Runs on a dedicated thread.
    func stop()
    /// Returns once the work `stop` ended has finished (a last write, a last advertising update):
    /// the daemon awaits it before it shuts the controller down.
    func finished() async
    /// Whether `sensorChanged` is wanted: an exporter that reads the state when asked (the
    /// Prometheus endpoint) says no, and the bridge then builds no status per poll for it.
    var hearsPolls: Bool { get }
    /// A sensor's status after a poll. Called on that sensor's thread: must not block.
    func sensorChanged(_ status: SensorStatus)
    /// For `status` and `doctor`; called on the control server's thread: must not block.
    func status() -> ExporterStatus
}

extension SensorExporter {
    public var hearsPolls: Bool { true }
    /// Nothing outlives `stop`.
    public func finished() async {}
}
