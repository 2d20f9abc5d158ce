import AudioIO

/// The I/O buffers `record` and `play` ask of their device: long, as aplay and arecord use (few wake-ups: what a
/// laptop's battery notices on a sound server); keys still act at once (a long buffer's queue is dropped, see
/// ``AudioSession/preferredIOBufferDuration``).
enum IOBufferChoice {
    /// Seconds per period when recording: 125 ms, as arecord's. The live meter, redrawn 20 times a second, takes the
    /// levels of each period as it comes: it moves 8 times a second, as level meters move.
    static let recording = 0.125
    /// Seconds per period when recording with nothing shown (`--no-meter`, `--json`): a quarter of a second, as
    /// playing, since no meter moves with the periods. Half the wake-ups of the capture thread and of the sound
    /// server's client thread, which cost as much as all the rest of a recording bar its measurements.
    static let recordingUnseen = 0.25
    /// Seconds per period when playing: a quarter of a second, half the wake-ups of 125 ms (each costs the device's
    /// plugin and the sound server's client thread as much as the mix). The live meter follows what is heard, as
    /// the player releases the levels of each stretch of the file once it has been heard, not a period at a time.
    static let playing = 0.25

    /// Asks for periods of `duration` seconds for the streams opened from now on.
    static func apply(_ duration: Double) {
        AudioSession.shared.setPreferredIOBufferDuration(duration)
    }
}
