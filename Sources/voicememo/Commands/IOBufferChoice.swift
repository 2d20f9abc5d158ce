import AudioIO

/// The I/O buffer `record` and `play` ask of their device: long when nothing is drawn, as aplay and arecord use
/// (few wake-ups: what a laptop's battery notices on a sound server), and short enough for a level meter redrawn
/// 20 times a second when one is.
enum IOBufferChoice {
    /// Seconds per period with nothing drawn.
    static let quiet = 0.125
    /// Seconds per period under a live meter: one redraw's worth.
    static let metered = 0.05

    static func apply(meterShown: Bool) {
        AudioSession.shared.setPreferredIOBufferDuration(meterShown ? metered : quiet)
    }
}
