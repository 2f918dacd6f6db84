import Bonding

/// What a role (peripheral or central) pairs with: the policy, where bonds are kept, and who answers the user side.
public struct SecuritySetup: Sendable {
    public var configuration: SecurityManager.Configuration
    public var store: any BondStore
    public var agent: any PairingAgent

    public init(configuration: SecurityManager.Configuration = .init(), store: any BondStore,
                agent: any PairingAgent = AutomaticPairingAgent()) {
        self.configuration = configuration
        self.store = store
        self.agent = agent
    }
}
