import Bonding
import GRDB

/// Turns whatever GRDB or a closure threw into the store's typed error. GRDB keeps statement arguments out of
/// its error descriptions (`publicStatementArguments` is off), so no key reaches a message.
enum StoreErrors {
    static func map(_ error: any Error, path: String) -> BondStoreError {
        switch error {
        case let error as BondStoreError:
            return error
        case is CancellationError:
            return .cancelled
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return .corrupt(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_AUTH:
                return .cannotOpen(path: path, reason: error.message ?? "\(error.resultCode)")
            case .SQLITE_INTERRUPT:
                return .cancelled
            default:
                return .databaseFailure("\(path): \(error.message ?? "\(error.resultCode)") (\(error.resultCode))")
            }
        default:
            return .databaseFailure("\(path): \(String(describing: type(of: error)))")
        }
    }
}
