/// Samples no signal has — NaN and ±infinity — as a device gone wrong (a broken driver, random bytes read as
/// floats) or a damaged float file delivers them.
///
/// Where they would do harm they are taken as silence: a measure (levels, loudness, true peak, waveform, the silence
/// skipper's threshold) counts them as 0, and a filter with memory (libsoxr, webrtc-audio-processing, libebur128's
/// weighting) is never fed one, since it would spread through everything that follows. Allocates nothing: the capture
/// thread may use it.
enum NonFiniteSamples {
    /// `sample`, or 0 when it is NaN or ±infinity.
    @inline(__always)
    static func finite(_ sample: Float) -> Float {
        sample.isFinite ? sample : 0
    }

    /// How many of `samples` are NaN or ±infinity.
    static func count(in samples: UnsafeBufferPointer<Float>) -> Int {
        // Counted without a branch or an overflow check (a block has far fewer than Int.max samples): an exponent of all
        // ones (NaN, ±infinity) carries into the top bit when one is added to it. The compiler vectorises this, where
        // a counting branch cost seven instructions a sample on every block a recording writes.
        var count = 0
        for index in samples.indices { count &+= Int(((samples[index].bitPattern & 0x7F80_0000) &+ 0x0080_0000) >> 31) }
        return count
    }

    /// Sets those of `samples` that are NaN or ±infinity to 0, and returns how many there were.
    @discardableResult
    static func zero(in samples: UnsafeMutableBufferPointer<Float>) -> Int {
        var count = 0
        for index in samples.indices where !samples[index].isFinite {
            samples[index] = 0
            count += 1
        }
        return count
    }
}
