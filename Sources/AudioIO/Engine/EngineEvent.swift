/// What the render thread reports, through a lock-free ring, for the engine's event thread to act on.
struct EngineEvent {
    enum Kind: UInt8 {
        /// The voice mixed its first frame.
        case started
        /// The voice reached its end marker.
        case finished
        /// The voice's frames now come from another queue item.
        case itemStarted
        /// The voice was taken out of the mix; its slot's reference may be released now.
        case removed
    }

    var kind: Kind
    /// The voice, as `Unmanaged<Voice>.toOpaque()`; the slot's retain keeps it alive until `removed`.
    var voice: UnsafeMutableRawPointer
}
