import ATT
import BLECore
import GATT

// Robust caching (Core Vol 3 Part G 2.5.2.1) for clients that set Client Supported Features bit 0.
extension GATTServer {
    /// Before a request is answered: a change-unaware client that asks about attribute handles
    /// gets Database Out Of Sync once; its next request (or a read of the Database Hash followed by
    /// another request) makes it change-aware. Discovery, Exchange MTU and a Read By Type of the
    /// whole range stay allowed, so the client can find out what changed.
    func checkChangeAwareness(of pdu: ATTPDU, context: ConnectionContext) throws(RequestError) {
        let handle: UInt16
        switch pdu {
        case .findInformationRequest, .findByTypeValueRequest, .readByGroupTypeRequest, .exchangeMTURequest:
            return
        case let .readByTypeRequest(start, end, type):
            if type == GATTUUID.include || type == GATTUUID.characteristic || (start == 0x0001 && end == 0xFFFF) { return }
            handle = start
        case let .readRequest(requested), let .readBlobRequest(requested, _), let .writeRequest(requested, _),
             let .prepareWriteRequest(requested, _, _):
            handle = requested
        case let .readMultipleRequest(handles), let .readMultipleVariableRequest(handles):
            handle = handles.first ?? 0x0000
        case .executeWriteRequest:
            handle = 0x0000
        default:
            return
        }
        var becameAware = false
        let outOfSync = withConnection(context) { entry -> Bool in
            guard entry.robustCachingEnabled, !entry.caching.changeAware else { return false }
            if entry.caching.databaseHashRead || entry.caching.outOfSyncSent {
                entry.caching = RobustCaching()
                becameAware = true
                return false
            }
            entry.caching.outOfSyncSent = true
            return true
        } ?? false
        if becameAware { delegate.clientStateChanged(link: context.link) }
        if outOfSync {
            logger.info("ATT: change-unaware client told Database Out Of Sync", metadata: ["link": "\(context.link.id)"])
            throw RequestError(handle, .databaseOutOfSync)
        }
    }

    /// Commands from a change-unaware client are ignored (their handles may mean other attributes now).
    func isChangeAwareForCommand(_ context: ConnectionContext) -> Bool {
        let aware = withConnection(context) { entry in !entry.robustCachingEnabled || entry.caching.changeAware } ?? false
        if !aware {
            logger.info("ATT: command from a change-unaware client ignored", metadata: ["link": "\(context.link.id)"])
        }
        return aware
    }

    /// The client read the Database Hash: if it is change-unaware, its next request makes it aware.
    func noteDatabaseHashRead(_ attribute: Attribute, context: ConnectionContext) {
        guard attribute.type == GATTUUID.databaseHash else { return }
        withConnection(context) { entry in
            if entry.robustCachingEnabled, !entry.caching.changeAware { entry.caching.databaseHashRead = true }
        }
    }
}
