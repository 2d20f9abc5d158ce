/// The peak-hold marks of a level meter: each channel's highest peak stays put for ``holdTime`` seconds,
/// then follows the current peak down.
struct PeakHold {
    /// How long a peak is held, in seconds.
    static let holdTime = 1.5

    private var held: [Double] = []
    private var heldAt: [Double] = []

    /// Takes the latest peaks (dBFS, one per channel) at `time` seconds and returns the marks to show.
    mutating func update(peaks: [Double], at time: Double) -> [Double] {
        if held.count != peaks.count {
            held = peaks
            heldAt = Array(repeating: time, count: peaks.count)
        }
        for channel in peaks.indices where peaks[channel] >= held[channel] || time - heldAt[channel] > Self.holdTime {
            held[channel] = peaks[channel]
            heldAt[channel] = time
        }
        return held
    }
}
