import BridgeConfiguration
import HCITransports

extension Examination {
    /// The service user, its hardware groups (those that exist and the configuration needs), and
    /// whether the person running the doctor can reach the control socket.
    mutating func checkAccounts(_ configuration: BridgeConfiguration?) {
        if let user = serviceUser {
            let groups = accounts.groupIDs(of: user).sorted().map(accounts.groupName)
            add(.accounts, .ok, "user \(user.name)", "exists (uid \(user.uid), groups \(groups.joined(separator: ", ")))")
            for (group, reason) in neededGroups(configuration) {
                if unitGroups.contains(group) {
                    add(.accounts, .ok, "group \(group)", "given to the service by its generated unit drop-in (for \(reason)): \(ServiceDeviceAccess.generatedPath)")
                    continue
                }
                guard let account = accounts.group(named: group) else {
                    add(.accounts, .info, "group \(group)", "does not exist here; access to \(reason) is checked by its owner and mode above")
                    continue
                }
                if accounts.isMember(user, of: account) {
                    add(.accounts, .ok, "group \(group)", "\(user.name) is a member (for \(reason))")
                } else {
                    add(.accounts, .fail, "group \(group)", "\(user.name) is not a member, but needs \(reason)",
                        fix: Installed.addToGroup(user.name, group))
                }
            }
        } else {
            add(.accounts, .fail, "user \(Installed.user)", "missing: the service runs as \(Installed.user)",
                fix: "create it with sudo systemd-sysusers (the package's /usr/lib/sysusers.d/blesensord.conf), "
                + "or reinstall the package; then \(Installed.restart)")
        }
        checkInvoker()
        checkDeviceAccess(configuration)
    }

    /// The devices systemd lets the packaged service open were generated from the configuration at
    /// the last boot or daemon-reload: a bus or port added since is refused with EPERM.
    private mutating func checkDeviceAccess(_ configuration: BridgeConfiguration?) {
        guard let configuration else { return }
        guard let generated = generatedDropIn else {
            if root.exists(ServiceDeviceAccess.generatorPath) {
                add(.accounts, .fail, "device access", "no \(ServiceDeviceAccess.generatedPath): the package's generator failed or has "
                    + "not run, so the service may open no sensor device (they fail with 'operation not permitted')",
                    fix: "sudo systemctl daemon-reload && \(Installed.restart); if it stays missing, journalctl -b | grep blesensord-devices")
            }
            return
        }
        let expected = ServiceDeviceAccess(configuration).dropIn(source: "", groupExists: { accounts.group(named: $0) != nil })
        if let stale = ServiceDeviceAccess.staleDropInWarning(expected: expected, generated: generated) {
            add(.accounts, .warn, "device access", stale, fix: "sudo systemctl daemon-reload && \(Installed.restart)")
        } else {
            let granted = ServiceDeviceAccess.directives(of: generated).filter { $0 != "[Service]" }
            add(.accounts, .ok, "device access", granted.isEmpty ? "the service may open no sensor device (none configured)"
                : "the service may open what the configuration uses: \(granted.joined(separator: ", "))")
        }
    }

    /// Groups the configured hardware needs, with what for: i2c for I2C sensors, gpio for a GPIO
    /// sensor, dialout for a UART controller.
    private func neededGroups(_ configuration: BridgeConfiguration?) -> [(String, String)] {
        guard let configuration, !configuration.board.simulated else { return [] }
        var needed: [(String, String)] = []
        let buses = Set(configuration.sensors.filter(\.driver.usesI2C).compactMap(\.i2cBus)).sorted()
        if !buses.isEmpty { needed.append(("i2c", buses.map { "/dev/i2c-\($0)" }.joined(separator: ", "))) }
        if configuration.sensors.contains(where: { $0.driver.descriptor.connection == .gpio }) { needed.append(("gpio", "the GPIO chips")) }
        if case let .uart(path, _, _)? = try? TransportSpecification(parsing: configuration.transport) {
            needed.append(("dialout", path))
        }
        return needed
    }

    /// `blesensor status` and the doctor's own daemon check need the socket: root or group blesensor.
    private mutating func checkInvoker() {
        let invoker = environment.invoker
        let name = accounts.user(id: invoker.uid)?.name ?? "uid \(invoker.uid)"
        let subject = "you (\(name))"
        guard invoker.uid != 0 else {
            add(.accounts, .ok, subject, "may use the control socket (root)")
            return
        }
        guard let group = accounts.group(named: Installed.socketGroup) else {
            add(.accounts, .warn, subject, "cannot use the control socket: there is no group \(Installed.socketGroup)",
                fix: "run blesensor status with sudo, or reinstall the package, which creates the group")
            return
        }
        if invoker.identity.groups.contains(group.gid) {
            add(.accounts, .ok, subject, "may use the control socket (group \(group.name)): blesensor status works without sudo")
        } else if let user = accounts.user(id: invoker.uid), accounts.isMember(user, of: group) {
            add(.accounts, .warn, subject, "cannot use the control socket yet: added to group \(group.name) after this login started",
                fix: "log out and in again (or run newgrp \(group.name))")
        } else {
            add(.accounts, .warn, subject, "cannot use the control socket: not in group \(group.name), so blesensor status needs sudo",
                fix: "sudo adduser \(accounts.user(id: invoker.uid)?.name ?? "$USER") \(group.name), then log in again")
        }
    }
}
