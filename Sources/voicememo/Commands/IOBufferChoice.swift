import AudioIO

/// The I/O buffer `record` and `play` ask of their device: long, as aplay and arecord use (few wake-ups: what a
/// laptop's battery notices on a sound server). The live meter, redrawn 20 times a second, then moves about 8 times
/// a second, as level meters move; keys still act at once (a long buffer's queue is dropped, see
/// ``AudioSession/preferredIOBufferDuration``).
enum IOBufferChoice {
    /// Seconds per period.
    static let duration = 0.125

    static func apply() {
        AudioSession.shared.setPreferredIOBufferDuration(duration)
    }
}
