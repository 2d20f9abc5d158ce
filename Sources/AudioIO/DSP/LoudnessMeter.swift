import CEBUR128

/// Why libebur128 could not measure, or libsoxr oversample for the true peak. The corresponding C type is `enum error`.
enum LoudnessMeterError: Error, Equatable, CustomStringConvertible {
    /// libebur128 could not allocate its state (`EBUR128_ERROR_NOMEM`).
    case outOfMemory
    /// libebur128 refused what it was asked (an invalid mode or channel index): a bug here.
    case refused(code: Int32)
    /// libsoxr failed to oversample the signal for its true peak, saying why.
    case oversamplingFailed(String)

    init(code: Int32) {
        self = code == Int32(EBUR128_ERROR_NOMEM.rawValue) ? .outOfMemory : .refused(code: code)
    }

    var description: String {
        switch self {
        case .outOfMemory: "out of memory"
        case .refused(let code): "libebur128 refused the request (error \(code))"
        case .oversamplingFailed(let why): "oversampling for the true peak failed: \(why)"
        }
    }
}

/// Turns a libebur128 return code into a Swift error.
private func check(_ code: Int32) throws(LoudnessMeterError) {
    if code != Int32(EBUR128_SUCCESS.rawValue) { throw LoudnessMeterError(code: code) }
}

/// Measures ``AudioLoudness`` (integrated loudness, loudness range, true peak) of interleaved float frames as they
/// pass: the loudness through libebur128 (this is the only place that calls `ebur128_*`), the true peak through a
/// ``TruePeakMeter``, which oversamples with libsoxr for a fraction of what libebur128's own true-peak mode costs.
///
/// Channels are weighted as BS.1770-4 says for the standard layout of their count (``Downmix``'s: surrounds +1.5 dB,
/// the LFE left out); a mono recording counts as one channel, as ffmpeg's `ebur128` filter counts it.
///
/// Not for the audio threads (libebur128 may allocate as it goes). A writer or converter thread feeds it; its memory
/// stays the same however long the recording.
///
/// **Not thread-safe**: one thread feeds it.
final class LoudnessMeter {
    private let state: UnsafeMutablePointer<ebur128_state>
    private let truePeak: TruePeakMeter
    private let channelCount: Int
    /// The first failure of ``add(_:)``; the measure is lost from then on.
    private var failure: LoudnessMeterError?
    /// Where a block holding NaN or infinity is made finite; grown to the largest such block, then reused.
    private var finite: [Float] = []

    /// A meter for `channelCount` interleaved channels at `sampleRate` Hz.
    ///
    /// The corresponding C functions are `ebur128_init` and `ebur128_set_channel`.
    init(channelCount: Int, sampleRate: Double) throws(LoudnessMeterError) {
        // Histogram mode: the gated blocks are counted in 0.075 LU bins instead of kept one by one, so that an
        // eight-hour recording measures in the memory a minute's does (kept, they would grow by 2 MB an hour), at
        // no cost to Tech 3341's tolerances. No true peak: the TruePeakMeter measures it.
        let mode = EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_HISTOGRAM.rawValue
        guard channelCount > 0 else { throw .outOfMemory }
        do {
            truePeak = try TruePeakMeter(channelCount: channelCount, sampleRate: sampleRate)
        } catch {
            throw .oversamplingFailed(error.description)
        }
        guard let state = ebur128_init(UInt32(channelCount), UInt(sampleRate.rounded()), Int32(mode)) else { throw .outOfMemory }
        self.state = state
        self.channelCount = channelCount
        for (index, speaker) in Downmix.layout(channelCount: channelCount).enumerated() {
            do throws(LoudnessMeterError) {
                try check(ebur128_set_channel(state, UInt32(index), Int32(Self.channel(for: speaker).rawValue)))
            } catch {
                var pointer: UnsafeMutablePointer<ebur128_state>? = state
                ebur128_destroy(&pointer)
                throw error
            }
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
    }

    /// libebur128's name for a speaker of a layout: its weight (BS.1770-4 Table 3) comes with it.
    private static func channel(for speaker: Downmix.Speaker) -> channel {
        switch speaker {
        case .left: EBUR128_LEFT
        case .right: EBUR128_RIGHT
        case .center: EBUR128_CENTER
        case .lowFrequency: EBUR128_UNUSED
        case .leftSurround: EBUR128_LEFT_SURROUND
        case .rightSurround: EBUR128_RIGHT_SURROUND
        // Behind the listener: weight 1, as BS.1770-4 gives every channel outside ±60…120°.
        case .centerSurround: EBUR128_Mp180
        }
    }

    /// Adds interleaved frames of the meter's channels, NaN and ±infinity as silence. After a failure (libebur128 out
    /// of memory, libsoxr failing) it adds nothing more, and ``loudness()`` throws.
    ///
    /// The corresponding C function is `ebur128_add_frames_float`.
    ///
    /// - Precondition: ``loudness()`` has not been called: it ends the measure.
    func add(_ samples: UnsafeBufferPointer<Float>) {
        guard failure == nil, samples.count >= channelCount else { return }
        guard NonFiniteSamples.count(in: samples) == 0 else {
            // libebur128's weighting filter would carry a NaN or infinity into every block after it: silence instead.
            finite.removeAll(keepingCapacity: true)
            finite.append(contentsOf: samples)
            return finite.withUnsafeMutableBufferPointer { finite in
                NonFiniteSamples.zero(in: finite)
                add(UnsafeBufferPointer(finite))
            }
        }
        do throws(LoudnessMeterError) {
            try check(ebur128_add_frames_float(state, samples.baseAddress!, samples.count / channelCount))
            do {
                try truePeak.add(samples)
            } catch {
                throw .oversamplingFailed(error.description)
            }
        } catch {
            failure = error
        }
    }

    /// The loudness of everything added, once it has all been added: the true peak's oversampling is drained, so no
    /// frames can follow. Called again, it reads the same.
    ///
    /// The corresponding C functions are `ebur128_loudness_global` and `ebur128_loudness_range`.
    ///
    /// - Throws: ``LoudnessMeterError`` when adding frames failed, or libebur128 cannot tell (out of memory).
    func loudness() throws(LoudnessMeterError) -> AudioLoudness {
        if let failure { throw failure }
        var integrated = 0.0
        var range = 0.0
        try check(ebur128_loudness_global(state, &integrated))
        try check(ebur128_loudness_range(state, &range))
        let peak: Double
        do {
            peak = try truePeak.finish()
        } catch {
            throw .oversamplingFailed(error.description)
        }
        return AudioLoudness(
            integrated: integrated.isFinite ? max(integrated, AudioLoudness.silence) : AudioLoudness.silence,
            range: range.isFinite ? range : 0, truePeak: AudioLevels.decibels(peak))
    }

    /// libebur128's version, e.g. `libebur128 1.2.6`.
    ///
    /// The corresponding C function is `ebur128_get_version`.
    static var version: String {
        var (major, minor, patch): (Int32, Int32, Int32) = (0, 0, 0)
        ebur128_get_version(&major, &minor, &patch)
        return "libebur128 \(major).\(minor).\(patch)"
    }
}
