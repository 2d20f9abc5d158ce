/// Shortens pauses in a stream of interleaved float frames, as ``SilenceSkipping`` describes: a run of silent frames
/// (every channel below the threshold) of at least the minimum is cut to the kept duration — its first half, a
/// crossfade from the frames after that first half to the frames before the last half, its last half — so that the
/// join falls where there is only silence and no click is heard.
///
/// A run is only known to be long enough once it has lasted the minimum: until then its frames (past the first half
/// of the kept gap) wait inside, and go out unchanged if sound comes first. ``process(_:)`` stops right where a pause
/// was shortened, so that its caller can note the jump in time between the frames before and after.
///
/// **Threads**: the decoder thread only. Its buffers are allocated once, in `init`.
final class SilenceSkipper {
    /// What one call of ``process(_:)`` did.
    struct Step {
        /// Input frames taken.
        var consumed: Int
        /// Frames given out, at the start of ``output``.
        var produced: Int
        /// Frames of silence left out after those given out: nonzero when the step ended where a pause was shortened.
        var skipped: Int
    }

    /// The most input frames one call takes.
    let maximumInput: Int
    let channelCount: Int
    /// Where ``process(_:)`` writes; ``Step/produced`` frames of it are valid after each call.
    let output: UnsafeMutableBufferPointer<Float>

    /// Frames of the kept gap's first half, of the crossfade, of the kept gap's last half, of the shortest pause shortened.
    private let head: Int, fade: Int, tail: Int, minimum: Int
    /// The silence threshold, in dB relative to the reference level.
    private let relativeThreshold: Double
    /// The silence threshold as a linear amplitude; `nil` while the running level is not known yet.
    private var threshold: Float?
    /// Per channel, the sum of squares of the frames seen, and how many: the running average level, when no
    /// reference level was given (empty otherwise).
    private var squareSums: [Double] = []
    private var framesSeen = 0
    /// Frames seen before the running level counts.
    private let warmUp: Int

    private enum State {
        /// Frames pass.
        case sound
        /// A silent run of `run` frames so far, shorter than the minimum: its first ``head`` frames have gone out, the
        /// rest wait in ``pending``.
        case quiet(run: Int)
        /// A silent run of `run` frames, long enough: the frames after its head that are to fade out wait in
        /// ``fadeOut``, its last frames in ``tailRing``.
        case skipping(run: Int)
    }

    private var state = State.sound
    private let pending: UnsafeMutableBufferPointer<Float>
    private let fadeOut: UnsafeMutableBufferPointer<Float>
    private let tailRing: UnsafeMutableBufferPointer<Float>
    /// The oldest frame in ``tailRing``, and how many it holds.
    private var tailStart = 0, tailCount = 0
    private let join: UnsafeMutableBufferPointer<Float>
    /// Frames to go out first in the next call: the join after a shortened pause, or the frames of a pause that was
    /// waiting when the stream ended.
    private var staged = UnsafeBufferPointer<Float>(start: nil, count: 0)

    /// A skipper for `channelCount` channels at `sampleRate` Hz that takes up to `maximumInput` frames a call.
    init(channelCount: Int, sampleRate: Double, settings: SilenceSkipping, maximumInput: Int) {
        let settings = settings.clamped
        self.channelCount = channelCount
        self.maximumInput = maximumInput
        fade = max(Int(SilenceSkipping.crossfade * sampleRate), 1)
        let kept = max(Int(settings.keptDuration * sampleRate), 3 * fade)
        head = (kept - fade) / 2
        tail = kept - fade - head
        minimum = max(Int(settings.minimumDuration * sampleRate), head + tail + 2 * fade)
        relativeThreshold = settings.threshold
        if let reference = settings.referenceLevel {
            threshold = Float(AudioLevels.amplitude(reference + settings.threshold))
        } else {
            squareSums = Array(repeating: 0, count: channelCount)
        }
        warmUp = Int(sampleRate)
        pending = .allocate(capacity: (minimum - head) * channelCount)
        fadeOut = .allocate(capacity: fade * channelCount)
        tailRing = .allocate(capacity: (tail + fade) * channelCount)
        join = .allocate(capacity: (tail + fade) * channelCount)
        output = .allocate(capacity: (maximumInput + minimum) * channelCount)
    }

    deinit {
        for buffer in [pending, fadeOut, tailRing, join, output] { buffer.deallocate() }
    }

    /// Takes frames from `input` (at most ``maximumInput``) and gives out what follows in the stream, at the start of
    /// ``output``. The step ends early, with ``Step/skipped`` set, where a pause was shortened: call again with the
    /// rest.
    func process(_ input: UnsafeBufferPointer<Float>) -> Step {
        let frames = min(input.count / channelCount, maximumInput)
        var produced = 0
        if !staged.isEmpty {
            append(staged, at: &produced)
            staged = UnsafeBufferPointer(start: nil, count: 0)
        }
        if !squareSums.isEmpty { measure(UnsafeBufferPointer(rebasing: input[..<(frames * channelCount)])) }
        var frame = 0
        while frame < frames {
            switch state {
            case .sound:
                let quiet = firstFrame(of: input, from: frame, to: frames, loud: false)
                append(input, frames: frame..<quiet, at: &produced)
                frame = quiet
                if quiet < frames { state = .quiet(run: 0) }
            case .quiet(let run):
                let end = firstFrame(of: input, from: frame, to: min(frames, frame + minimum - run), loud: true)
                // The kept gap's first half goes out as it comes; the rest waits for the run to prove long enough.
                let given = min(end - frame, max(head - run, 0))
                append(input, frames: frame..<(frame + given), at: &produced)
                let waiting = max(run - head, 0) * channelCount
                let held = (end - frame - given) * channelCount
                _ = UnsafeMutableBufferPointer(rebasing: pending[waiting..<(waiting + held)])
                    .update(fromContentsOf: input[((frame + given) * channelCount)..<(end * channelCount)])
                let length = run + end - frame
                frame = end
                if length == minimum {
                    beginSkipping()
                    state = .skipping(run: length)
                } else if end < frames {
                    // Sound before the minimum: the pause stays whole.
                    append(UnsafeBufferPointer(rebasing: pending[..<(waiting + held)]), at: &produced)
                    state = .sound
                } else {
                    state = .quiet(run: length)
                }
            case .skipping(let run):
                let end = firstFrame(of: input, from: frame, to: frames, loud: true)
                keep(UnsafeBufferPointer(rebasing: input[(frame * channelCount)..<(end * channelCount)]))
                let length = run + end - frame
                frame = end
                guard end < frames else {
                    state = .skipping(run: length)
                    break
                }
                state = .sound
                return Step(consumed: frame, produced: produced, skipped: stageJoin(run: length))
            }
        }
        return Step(consumed: frames, produced: produced, skipped: 0)
    }

    /// The stream ends here (or skipping is turned off): a pause in progress ends, shortened if it was long enough.
    /// Returns the frames left out (0 if none); what it still holds goes out with the next ``process(_:)``, which may
    /// be given no input.
    func end() -> Int {
        switch state {
        case .sound:
            return 0
        case .quiet(let run):
            state = .sound
            staged = UnsafeBufferPointer(rebasing: pending[..<(max(run - head, 0) * channelCount)])
            return 0
        case .skipping(let run):
            state = .sound
            return stageJoin(run: run)
        }
    }

    /// A silent run reached the minimum: ``pending`` holds its frames after the head. Those that fade out are kept
    /// apart; the others start the tail.
    private func beginSkipping() {
        let fadeSamples = fade * channelCount
        _ = fadeOut.update(fromContentsOf: pending[..<fadeSamples])
        tailStart = 0
        tailCount = 0
        keep(UnsafeBufferPointer(rebasing: pending[fadeSamples..<((minimum - head) * channelCount)]))
    }

    /// Keeps the last frames of `frames` in the tail ring, the oldest dropped.
    private func keep(_ frames: UnsafeBufferPointer<Float>) {
        let capacity = tail + fade
        let count = frames.count / channelCount
        for frame in max(count - capacity, 0)..<count {
            let slot = (tailStart + tailCount) % capacity
            for channel in 0..<channelCount { tailRing[slot * channelCount + channel] = frames[frame * channelCount + channel] }
            if tailCount < capacity { tailCount += 1 } else { tailStart = (tailStart + 1) % capacity }
        }
    }

    /// Ends a shortened pause of `run` frames: stages the crossfade from the frames after its head to the ring's
    /// oldest, then the ring's last ``tail`` frames; returns the frames left out.
    private func stageJoin(run: Int) -> Int {
        let capacity = tail + fade
        for frame in 0..<capacity {
            let slot = (tailStart + frame) % capacity
            let weight = frame < fade ? (Float(frame) + 0.5) / Float(fade) : 1
            for channel in 0..<channelCount {
                let incoming = tailRing[slot * channelCount + channel]
                let outgoing = frame < fade ? fadeOut[frame * channelCount + channel] : 0
                join[frame * channelCount + channel] = outgoing * (1 - weight) + incoming * weight
            }
        }
        staged = UnsafeBufferPointer(rebasing: join[..<(capacity * channelCount)])
        return run - head - fade - tail
    }

    /// The first frame of `input` in `start..<end` that is loud (some channel at or above the threshold) when `loud`,
    /// or silent (every channel below it) when not; `end` when there is none. Everything is loud while the threshold is
    /// not known.
    private func firstFrame(of input: UnsafeBufferPointer<Float>, from start: Int, to end: Int, loud: Bool) -> Int {
        guard let threshold else { return loud ? start : end }
        var frame = start
        while frame < end {
            var isLoud = false
            for channel in 0..<channelCount where abs(input[frame * channelCount + channel]) >= threshold {
                isLoud = true
                break
            }
            if isLoud == loud { return frame }
            frame += 1
        }
        return end
    }

    /// Adds `samples` to the running level, and sets the threshold from it once a second has been seen.
    private func measure(_ samples: UnsafeBufferPointer<Float>) {
        let frames = samples.count / channelCount
        for channel in 0..<channelCount {
            var sum = 0.0
            for frame in 0..<frames {
                // NaN and ±infinity as silence, and nothing past full scale: a moment of garbage from a device must
                // not set the threshold for good.
                let sample = min(max(NonFiniteSamples.finite(samples[frame * channelCount + channel]), -1), 1)
                sum += Double(sample) * Double(sample)
            }
            squareSums[channel] += sum
        }
        framesSeen += frames
        guard framesSeen >= warmUp, let loudest = squareSums.max() else { return }
        threshold = Float(AudioLevels.amplitude(AudioLevels.decibels((loudest / Double(framesSeen)).squareRoot()) + relativeThreshold))
    }

    private func append(_ frames: UnsafeBufferPointer<Float>, at produced: inout Int) {
        _ = UnsafeMutableBufferPointer(rebasing: output[(produced * channelCount)...].prefix(frames.count)).update(fromContentsOf: frames)
        produced += frames.count / channelCount
    }

    private func append(_ input: UnsafeBufferPointer<Float>, frames: Range<Int>, at produced: inout Int) {
        append(UnsafeBufferPointer(rebasing: input[(frames.lowerBound * channelCount)..<(frames.upperBound * channelCount)]), at: &produced)
    }
}
