/// What the capture thread reports, through a lock-free ring, for the input engine's event thread to act on.
struct CaptureEvent {
    enum Kind: UInt8 {
        /// The tap received its first frame.
        case started
        /// The tap reached its frame limit.
        case finished
        /// Input was lost; ``CaptureEvent/frames`` frames of silence stand in for it.
        case overrun
        /// The tap was let go of; its slot's reference may be released now.
        case removed
    }

    var kind: Kind
    /// The tap, as `Unmanaged<CaptureTap>.toOpaque()`; the slot's retain keeps it alive until `removed`.
    var tap: UnsafeMutableRawPointer
    /// For ``Kind/overrun``: the frames lost.
    var frames: Int = 0
}
