import BridgeConfiguration

/// One run of the checks: what they share (the root, the accounts, the service user) and the
/// lines found so far. Each area's checks live in an extension of their own.
struct Examination {
    let options: DoctorOptions
    let environment: DoctorEnvironment
    let accounts: AccountDatabase
    /// The drop-in the package's generator wrote, read once (nil: none, not the packaged unit).
    let generatedDropIn: String?
    private(set) var checks: [DoctorCheck] = []

    init(options: DoctorOptions, environment: DoctorEnvironment) {
        self.options = options
        self.environment = environment
        self.accounts = AccountDatabase(root: environment.root)
        self.generatedDropIn = environment.root.readText(ServiceDeviceAccess.generatedPath)
    }

    var root: SystemRoot { environment.root }

    mutating func run() -> [DoctorCheck] {
        let configuration = checkConfiguration()
        if let configuration {
            checkBluetooth(configuration)
            checkI2C(configuration)
            checkGPIO(configuration)
            checkOneWire(configuration)
            checkKernelSensors(configuration)
        }
        checkAccounts(configuration)
        let daemon = checkDaemon(configuration)
        checkExporters(daemon: daemon)
        if let configuration {
            checkSensors(configuration, daemon: daemon)
        } else {
            add(.sensors, .info, "sensors", "not checked: they come from the configuration, which did not load")
        }
        return checks
    }

    mutating func add(_ check: DoctorCheck) {
        checks.append(check)
    }

    mutating func add(_ area: CheckArea, _ status: CheckStatus, _ subject: String, _ detail: String,
                      fix: String? = nil, notes: [String] = []) {
        checks.append(DoctorCheck(area, status, subject, detail, fix: fix, notes: notes))
    }

    // MARK: the service user

    /// The account the unit runs as (`User=blesensor`); nil when it does not exist.
    var serviceUser: UserAccount? { accounts.user(named: Installed.user) }

    /// The ids systemd gives the service: its user, primary group, the groups listing it, and the
    /// groups its generated unit drop-in adds (dialout for a uart: transport).
    var serviceIdentity: ProcessIdentity? {
        serviceUser.map { ProcessIdentity(uid: $0.uid, groups: accounts.groupIDs(of: $0).union(unitGroupIDs)) }
    }

    /// `SupplementaryGroups=` of the drop-in the package's generator wrote: dialout comes from
    /// there, only with a uart: transport, not from the user's membership.
    var unitGroups: [String] { generatedDropIn.map(ServiceDeviceAccess.supplementaryGroups(of:)) ?? [] }

    var unitGroupIDs: Set<UInt32> { Set(unitGroups.compactMap { accounts.group(named: $0)?.gid }) }

    /// `root:i2c rw-rw----`.
    func ownership(_ info: FileInfo) -> String {
        "\(accounts.userName(info.owner)):\(accounts.groupName(info.group)) \(info.permissionText)"
    }

    /// Whether the service user may open a device it needs: `ok` with the ownership, or `fail` with
    /// the group to join (or, for a root-only device, the udev rule that would open it to a group).
    func serviceAccess(_ area: CheckArea, _ path: String, _ info: FileInfo, need: ProcessIdentity.Need,
                       usualGroup: String, what: String) -> DoctorCheck {
        guard let identity = serviceIdentity else {
            return DoctorCheck(area, .ok, path, "present (\(ownership(info))); access not checked: there is no user \(Installed.user) (see below)")
        }
        if identity.may(need, info) {
            return DoctorCheck(area, .ok, path, "present (\(ownership(info)); \(Installed.user) can \(need.words) it)")
        }
        let group = accounts.group(id: info.group)
        let fix: String
        if let group, group.gid != 0, info.mode & (need == .read ? 0o040 : 0o060) == (need == .read ? 0o040 : 0o060) {
            fix = Installed.addToGroup(Installed.user, group.name)
        } else {
            fix = "\(path) is open to root only: give group \(usualGroup) access with a udev rule (\(what)), "
                + "then sudo udevadm trigger and \(Installed.addToGroup(Installed.user, usualGroup))"
        }
        return DoctorCheck(area, .fail, path, "present (\(ownership(info))) but \(Installed.user) cannot \(need.words) it", fix: fix)
    }

    /// Pi boards get the raspi-config and config.txt fixes; others the generic kernel ones.
    func isRaspberryPi(_ board: BoardProfile) -> Bool { board.name.hasPrefix("raspberry-pi") }
}

