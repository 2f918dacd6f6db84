import HCI

/// A part of the peripheral that keeps state per link, told of each peripheral link's life in one
/// place, as Zephyr attaches its SMP and ATT contexts to a connection with uniform ops and NimBLE's
/// `ble_hs_conn_free` frees everything a link owns. `LinkAttachments` lists them in call order.
protocol LinkAttachment: Sendable {
    /// The link opened. False stops the opening here: the attachments after it never hear of the link.
    func opened(_ link: Link) -> Bool
    /// An Encryption Change (or Key Refresh Complete) on the link.
    func encryptionChanged(_ link: Link, status: HCIStatus)
    /// The link closed. False stops the closing here: the attachments after it never heard of the link.
    func closed(_ link: Link, reason: HCIStatus) -> Bool
}

extension LinkAttachment {
    func opened(_ link: Link) -> Bool { true }
    func encryptionChanged(_ link: Link, status: HCIStatus) {}
    func closed(_ link: Link, reason: HCIStatus) -> Bool { true }
}

/// The peripheral's attachments in the order each event reaches them. The orders are explicit
/// because they matter; each position says why.
struct LinkAttachments: Sendable {
    let opening: [any LinkAttachment]
    let encrypting: [any LinkAttachment]
    let closing: [any LinkAttachment]

    func opened(_ link: Link) {
        for attachment in opening { guard attachment.opened(link) else { return } }
    }

    func encryptionChanged(_ link: Link, status: HCIStatus) {
        for attachment in encrypting { attachment.encryptionChanged(link, status: status) }
    }

    func closed(_ link: Link, reason: HCIStatus) {
        for attachment in closing { guard attachment.closed(link, reason: reason) else { return } }
    }
}
