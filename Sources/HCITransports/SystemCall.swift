#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HCI

/// errno helpers shared by the descriptor-based transports.
enum SystemCall {
    /// The C library's text for an errno value ("Connection refused").
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// A `systemCallFailed` error for the given errno.
    static func failure(_ operation: String, errno code: Int32) -> HCITransportError {
        .systemCallFailed(operation: operation, errno: code, message: message(code))
    }

    /// Errno values after which the peer or device is gone, rather than the call being wrong.
    /// The HCI user channel gives EPIPE once its adapter is being unregistered, EBADFD once the
    /// socket lost it (unplugged, btvirt gone), ENETDOWN when it is not up.
    static func meansControllerGone(_ code: Int32) -> Bool {
        switch code {
        case EIO, ENXIO, ENODEV, EPIPE, EBADFD, ECONNRESET, ECONNABORTED, ETIMEDOUT, ENETDOWN, EHOSTUNREACH, ENOTCONN:
            return true
        default:
            return false
        }
    }

    /// poll(2) on a small set of descriptors, retrying on EINTR. `timeout` in ms, -1 for none.
    /// Returns the number of ready descriptors (0 on timeout) or -1 with errno set.
    static func poll(_ fds: inout [pollfd], timeout: Int32) -> Int32 {
        while true {
            let result = fds.withUnsafeMutableBufferPointer { buffer in
                #if canImport(Darwin)
                Darwin.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #elseif canImport(Musl)
                Musl.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #else
                Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #endif
            }
            if result >= 0 || errno != EINTR { return result }
        }
    }
}
