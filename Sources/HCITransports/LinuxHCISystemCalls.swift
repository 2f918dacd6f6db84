#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CBluetoothShim

/// The real `HCISystemCalls`: AF_BLUETOOTH sockets, HCI ioctls and /dev/rfkill (off Linux, every
/// call fails with EAFNOSUPPORT).
public struct LinuxHCISystemCalls: HCISystemCalls {
    public init() {}

    public func openSocket() -> Result<Int32, SystemErrno> {
        let fd = bls_hci_socket()
        return fd >= 0 ? .success(fd) : .failure(SystemErrno(errno))
    }

    public func isUp(_ socket: Int32, index: UInt16) -> Result<Bool, SystemErrno> {
        var up: Int32 = 0
        guard bls_hci_device_is_up(socket, index, &up) == 0 else { return .failure(SystemErrno(errno)) }
        return .success(up != 0)
    }

    public func powerDown(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> {
        bls_hci_device_down(socket, index) == 0 ? .success(()) : .failure(SystemErrno(errno))
    }

    public func bindUserChannel(_ socket: Int32, index: UInt16) -> Result<Void, SystemErrno> {
        bls_hci_bind_user_channel(socket, index) == 0 ? .success(()) : .failure(SystemErrno(errno))
    }

    public func close(_ descriptor: Int32) {
        closeDescriptor(descriptor)
    }

    public func unblockRfkill(index: UInt32) -> Result<Void, SystemErrno> {
        bls_rfkill_unblock(index) == 0 ? .success(()) : .failure(SystemErrno(errno))
    }
}

extension SystemErrno {
    /// "Operation not possible due to RF-kill": binding a blocked adapter.
    static let rfkill = bls_erfkill()
}
