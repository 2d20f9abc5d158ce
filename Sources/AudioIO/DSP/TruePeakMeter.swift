/// The true peak of interleaved float frames as they pass (ITU-R BS.1770-4, Annex 2): the signal oversampled to
/// 192 kHz or more (4× at 48 kHz, 2× from 96 kHz) by libsoxr's ``Resampler``, and the largest magnitude of any channel
/// there, between the samples as well as at them (a loudness's true peak is that of its loudest channel).
///
/// libebur128 measures the true peak too, but through a plain 49-tap interpolator, one multiply at a time in double
/// precision: seven times what its loudness costs, and most of what measuring a recording cost its writer thread.
/// libsoxr's oversampling is a steeper filter, closer to the band-limited signal the samples stand for, for a fraction
/// of the work; and where the signal is quiet that work is not done at all. The signal is taken in blocks of 0.1 s, and
/// a block is oversampled only if it could raise the peak: no oversampled value exceeds the largest sample within
/// ``contextFrames`` of it times ``gain`` (the most the filter's taps sum to, measured when the meter is made), so a
/// block whose samples, and its neighbours' next to it, stay below the peak found so far by that much is passed over.
/// Silence, and speech quieter than its loudest moments by 9 dB or more, cost a scan for their largest sample.
///
/// Blocks oversampled one after another are one stream through the oversampler, as if nothing were passed over. A
/// stream starts afresh with the ``contextFrames`` before its first block, and ends with those after its last one: the
/// filter reaches no further, so every value counted is the one oversampling the whole signal in one pass gives.
///
/// Not for the audio threads. **Not thread-safe**: one thread feeds it.
final class TruePeakMeter {
    private let channelCount: Int
    /// `nil` at 192 kHz and above, where the samples are the oversampled signal.
    private let oversampler: Resampler?
    /// Oversampled frames per frame.
    private let factor: Int
    /// The largest magnitude an oversampled value can have per unit of the largest sample within ``contextFrames`` of
    /// it; infinity when the filter reaches further than that (then no block is passed over).
    private let gain: Float
    /// Frames of a block.
    private let blockFrames: Int
    /// The block being gathered, after the context before it and followed by the context after it:
    /// `contextFrames + blockFrames + contextFrames` frames, of which `staged` are there.
    private let staging: UnsafeMutableBufferPointer<Float>
    private var staged: Int
    /// The signal's frame at the start of the staged block.
    private var blockStart = 0
    private let oversampled: UnsafeMutableBufferPointer<Float>
    /// The stream through the oversampler while blocks are oversampled one after another; `nil` between streams.
    private var stream: Stream?
    /// The bits of the largest magnitude so far (see ``loudestBits(_:)``).
    private var peakBits: UInt32 = 0
    /// Whether ``finish()`` has drained the last block: frames are no longer taken.
    private var isFinished = false

    /// Where an oversampling stream is, in oversampled frames of the signal.
    private struct Stream {
        /// The oversampled frame the oversampler's next value stands for.
        var next: Int
        /// The first oversampled frame that counts: the first block's, after the context that started the stream.
        let counted: Int
    }

    /// Frames of context either side of a block: more than libsoxr's filter reaches at any quality.
    static let contextFrames = 256
    /// Oversampled frames per piece the oversampler hands over.
    private static let pieceFrames = 8192

    /// A meter of `channelCount` interleaved channels at `sampleRate` Hz.
    init(channelCount: Int, sampleRate: Double) throws(ResamplerError) {
        // As libebur128 and BS.1770-4 choose: the oversampled rate at 192 kHz or above.
        factor = sampleRate < 96_000 ? 4 : sampleRate < 192_000 ? 2 : 1
        self.channelCount = channelCount
        blockFrames = max(Int(sampleRate / 10), 1)
        let oversampler = factor == 1 ? nil
            : try Resampler(inputRate: sampleRate, outputRate: sampleRate * Double(factor), channelCount: channelCount)
        self.oversampler = oversampler
        staging = .allocate(capacity: (2 * Self.contextFrames + blockFrames) * channelCount)
        // Before the first frame the signal is silence, as an oversampler starting afresh takes it.
        staging.initialize(repeating: 0)
        staged = Self.contextFrames
        oversampled = .allocate(capacity: Self.pieceFrames * channelCount)
        if let oversampler {
            gain = try Self.gain(of: oversampler, factor: factor, channelCount: channelCount, buffer: oversampled)
        } else {
            gain = 1
        }
    }

    deinit {
        staging.deallocate()
        oversampled.deallocate()
    }

    /// Adds interleaved frames of the meter's channels.
    ///
    /// - Precondition: ``finish()`` has not been called.
    func add(_ samples: UnsafeBufferPointer<Float>) throws(ResamplerError) {
        precondition(!isFinished, "a finished true-peak meter takes no more frames")
        guard oversampler != nil else {
            peakBits = max(peakBits, Self.loudestBits(samples))
            return
        }
        let capacity = 2 * Self.contextFrames + blockFrames
        var offset = 0
        while offset < samples.count {
            let count = min((capacity - staged) * channelCount, samples.count - offset)
            let destination = UnsafeMutableBufferPointer(rebasing: staging[(staged * channelCount)..<(staged * channelCount + count)])
            _ = destination.update(fromContentsOf: UnsafeBufferPointer(rebasing: samples[offset..<(offset + count)]))
            // libsoxr is not to see NaN or infinity: they would spread through the rest of the stream.
            NonFiniteSamples.zero(in: destination)
            staged += count / channelCount
            offset += count
            guard staged == capacity else { continue }
            try measureBlock(isLast: false)
            // The next block's context before it is this block's end; what followed it, its start.
            let kept = 2 * Self.contextFrames * channelCount
            _ = UnsafeMutableBufferPointer(rebasing: staging[..<kept])
                .update(fromContentsOf: UnsafeBufferPointer(rebasing: staging[(blockFrames * channelCount)...]))
            staged = 2 * Self.contextFrames
            blockStart += blockFrames
        }
    }

    /// Measures what is left (the last block, after which the signal is silence, as the oversampler's drain takes it)
    /// and returns the true peak, linear (1 is full scale). Called again, it returns the same.
    func finish() throws(ResamplerError) -> Double {
        if !isFinished, oversampler != nil { try measureBlock(isLast: true) }
        isFinished = true
        return Double(Float(bitPattern: peakBits))
    }

    /// Decides for the staged block: oversampled (in the stream, or starting one with the context before it) when it
    /// could raise the peak; otherwise passed over, which ends a stream with the context after the block before.
    private func measureBlock(isLast: Bool) throws(ResamplerError) {
        let context = Self.contextFrames
        let block = context..<(isLast ? staged : context + blockFrames)
        let loudest = Float(bitPattern: Self.loudestBits(UnsafeBufferPointer(rebasing: staging[..<(staged * channelCount)])))
        if !block.isEmpty, loudest > 0, gain * loudest > Float(bitPattern: peakBits) {
            if stream == nil {
                try oversampler?.clear()
                let start = (blockStart - context) * factor
                stream = Stream(next: start, counted: blockStart * factor)
                try feed(0..<context)
            }
            try feed(block)
            if isLast { try drain(countingUntil: .max) }
        } else if stream != nil {
            // The values up to the block's start need what follows it; its own, counted or not, are the signal's.
            if isLast {
                try drain(countingUntil: .max)
            } else {
                try feed(context..<(2 * context))
                try drain(countingUntil: blockStart * factor)
            }
        }
    }

    /// Oversamples the staged frames `frames` in the stream.
    private func feed(_ frames: Range<Int>) throws(ResamplerError) {
        guard let oversampler else { return }
        var offset = frames.lowerBound * channelCount
        let end = frames.upperBound * channelCount
        while offset < end {
            let (consumed, produced) = try oversampler.process(
                UnsafeBufferPointer(rebasing: staging[offset..<end]), into: oversampled)
            guard consumed > 0 || produced > 0 else { throw ResamplerError(description: "libsoxr made no progress") }
            note(produced, countingUntil: .max)
            offset += consumed * channelCount
        }
    }

    /// Ends the stream: drains the oversampler, as if silence followed, counting its values up to `limit`.
    private func drain(countingUntil limit: Int) throws(ResamplerError) {
        guard let oversampler else { return }
        while case let produced = try oversampler.flush(into: oversampled), produced > 0 {
            note(produced, countingUntil: limit)
        }
        stream = nil
    }

    /// Raises the peak to the largest of the `count` values the oversampler just made that count: from the stream's
    /// first block on, and before `limit`.
    private func note(_ count: Int, countingUntil limit: Int) {
        guard var stream else { return }
        let first = min(max(stream.counted - stream.next, 0), count)
        let end = limit == .max ? count : min(max(limit - stream.next, first), count)
        if first < end {
            let values = oversampled[(first * channelCount)..<(end * channelCount)]
            peakBits = max(peakBits, Self.loudestBits(UnsafeBufferPointer(rebasing: values)))
        }
        stream.next += count
        self.stream = stream
    }

    /// The bits of the largest magnitude in `samples`. A float's magnitude orders as its bits without the sign do, as
    /// unsigned integers: their maximum is a loop the compiler vectorises, which a maximum of floats is not (it must
    /// keep the order of comparisons for NaNs). NaN and ±infinity, whose bits are infinity's and above, count as
    /// silence, as every measure takes them (see ``NonFiniteSamples``).
    private static func loudestBits(_ samples: UnsafeBufferPointer<Float>) -> UInt32 {
        var bits: UInt32 = 0
        for sample in samples {
            let magnitude = sample.bitPattern & 0x7FFF_FFFF
            bits = max(bits, magnitude < Float.infinity.bitPattern ? magnitude : 0)
        }
        return bits
    }

    /// The most an oversampled value can be per unit of the largest sample within ``contextFrames`` of it: the sum of
    /// the magnitudes of the filter's taps for each of the `factor` phases between two samples, the largest of them
    /// (measured on an impulse), with a thousandth more for rounding. Infinity when the impulse's response reaches past
    /// ``contextFrames``, where a block's context would not hold all it depends on.
    private static func gain(
        of oversampler: Resampler, factor: Int, channelCount: Int, buffer: UnsafeMutableBufferPointer<Float>
    ) throws(ResamplerError) -> Float {
        let frames = 2 * contextFrames + 1
        let impulse = UnsafeMutableBufferPointer<Float>.allocate(capacity: frames * channelCount)
        defer { impulse.deallocate() }
        impulse.initialize(repeating: 0)
        impulse[contextFrames * channelCount] = 1
        var sums = [Float](repeating: 0, count: factor)
        var outside: Float = 0
        var position = 0
        func note(_ piece: UnsafeBufferPointer<Float>) {
            for frame in 0..<(piece.count / channelCount) {
                let value = piece[frame * channelCount].magnitude
                let offset = position + frame - contextFrames * factor
                sums[(offset % factor + factor) % factor] += value
                if abs(offset) >= (contextFrames - 1) * factor { outside = max(outside, value) }
            }
            position += piece.count / channelCount
        }
        do {
            try oversampler.processAll(UnsafeBufferPointer(impulse), through: buffer, note)
            try oversampler.flushAll(through: buffer, note)
        } catch {
            throw error as? ResamplerError ?? ResamplerError(description: "\(error)")
        }
        return outside > 1e-6 ? .infinity : sums.max()! * 1.001
    }
}
