import FoundationEssentials
import SystemEdge

/// Why a player of an address holds its output back.
enum RemoteWait: Equatable {
    /// A new voice (a start, a seek) waits for its first audio.
    case starting
    /// The buffer ran empty while playing.
    case stalled
}

/// When the output of a voice fed from addresses waits for the download: the one place that decides it, for
/// ``AudioPlayer`` and ``AudioQueuePlayer`` alike. A player keeps one in its state and calls it under its lock, with
/// its voice, the voice's engine and whether its decoder waits for bytes.
///
/// Only a device with a clock stalls: one without (ALSA's `null`, an ``OfflineRenderer``) waits for the decoder
/// anyway, and its output never runs dry.
struct RemoteBuffering {
    /// Seconds of audio downloaded ahead of where the decoder reads, at which playback is likely to keep up: a stall
    /// ends with at least this much buffered (or the whole file).
    static let likelyToKeepUpSeconds = 2.0
    /// How often a player of addresses looks at its buffer.
    static let interval = 0.02

    /// Why the output waits for the download, if it does.
    private(set) var wait: RemoteWait?

    /// What a look at the buffer found, for the player to report.
    enum Change: Equatable {
        /// The buffer ran empty: the output is paused.
        case stalled
        /// Enough is buffered again after a stall: the output goes on.
        case resumed
    }

    /// After a new voice was started or resumed: holds its output back while the decoder has nothing for it yet, on a
    /// device with a clock.
    mutating func hold(_ voice: Voice, on engine: StreamEngine) {
        if wait == nil, !voice.isPrimed.load(ordering: .acquiring) { wait = .starting }
        if wait != nil, !engine.isUnclocked { voice.isPaused.store(true, ordering: .releasing) }
    }

    /// Forgets the wait, for a voice let go.
    mutating func reset() {
        wait = nil
    }

    /// Whether the output waits for the download: held back (a start or a seek waiting for its first audio, or a
    /// stall), or the ring running dry while the decoder waits for bytes.
    func isBufferEmpty(_ voice: Voice?, on engine: StreamEngine?, decoderWaits: Bool) -> Bool {
        guard wait == nil else { return true }
        guard let voice, let engine else { return false }
        return Self.runsDry(voice, on: engine, decoderWaits: decoderWaits)
    }

    /// Whether the voice's ring holds less than a period (and 50 ms) while the decoder waits for bytes.
    private static func runsDry(_ voice: Voice, on engine: StreamEngine, decoderWaits: Bool) -> Bool {
        guard decoderWaits else { return false }
        let lowWater = max(engine.configuration.periodFrames, Int(engine.sampleRate * 0.05))
        return voice.audio.availableToRead / voice.channelCount < lowWater
    }

    /// Looks at the buffer of a voice in the mix: stalls it when the ring runs dry while the decoder waits for bytes
    /// (on a device with a clock), and resumes it once enough is buffered — two seconds of an address, in the ring and
    /// downloaded ahead of the decoder together, or all of it; a quarter of the ring of a file — or a new voice once it
    /// has its first audio.
    ///
    /// - Parameters:
    ///   - isPlaying: Whether the player plays (a paused one is held, and resumed only by its `play()`).
    ///   - decoderWaits: Whether the decoder waits for bytes (of the address it reads, or to open the next).
    ///   - download: What is downloaded of the address the decoder reads, and its length in seconds; nil for a file.
    /// - Returns: What the player reports, if anything.
    mutating func look(
        at voice: Voice, on engine: StreamEngine, isPlaying: Bool, decoderWaits: Bool,
        download: (progress: RemoteAsset.Progress, duration: TimeInterval)?
    ) -> Change? {
        switch wait {
        case nil:
            guard !engine.isUnclocked, isPlaying, Self.runsDry(voice, on: engine, decoderWaits: decoderWaits),
                  voice.hasStarted.load(ordering: .acquiring), !voice.hasFinished.load(ordering: .acquiring)
            else { return nil }
            wait = .stalled
            voice.isPaused.store(true, ordering: .releasing)
            return .stalled
        case .starting:
            guard voice.isPrimed.load(ordering: .acquiring) else { return nil }
            resume(voice, on: engine, isPlaying: isPlaying)
            return nil
        case .stalled:
            let framesInRing = voice.audio.availableToRead / voice.channelCount
            let isLoadedToEnd = download?.progress.isLoadedToEnd ?? true
            let everythingIsHere = !decoderWaits && isLoadedToEnd
            let resumes: Bool
            if let download {
                // Two seconds buffered: what the decoder took into the ring and what is downloaded ahead of it. The
                // decoder takes the bytes as they come, so neither alone shows two seconds while the download keeps
                // pace with playing; counted apart, playback went on after a fraction of a second, and stalled again.
                let inRing = Double(framesInRing) / engine.sampleRate
                // A failed download: what is in the ring plays out.
                let hasFailed = download.progress.failure != nil && !decoderWaits
                resumes = everythingIsHere || hasFailed || download.progress.isLikelyToKeepUp(
                    duration: download.duration, ahead: Self.likelyToKeepUpSeconds - inRing)
            } else {
                // A file, the next of which the decoder waited to open: a quarter of the ring is plenty.
                resumes = everythingIsHere || framesInRing >= voice.audio.capacity / voice.channelCount / 4
            }
            guard resumes else { return nil }
            resume(voice, on: engine, isPlaying: isPlaying)
            return .resumed
        }
    }

    private mutating func resume(_ voice: Voice, on engine: StreamEngine, isPlaying: Bool) {
        wait = nil
        guard isPlaying else { return }
        voice.isPaused.store(false, ordering: .releasing)
        engine.wake()
    }

    /// Calls `look` every ``interval`` on the calling thread (a player's own) until it returns false: its player is
    /// gone.
    static func keepLooking(_ look: () -> Bool) {
        repeat {
            MonotonicClock.sleep(seconds: interval)
        } while look()
    }
}

extension RemoteAsset.Progress {
    /// The stretches downloaded, in seconds of a file of `duration` seconds, in order: the byte ranges in proportion to
    /// the file's length (exact for PCM, close for the others). Empty until the length is known, and for a live
    /// playlist (an infinite duration), whose bytes say nothing of its time.
    func loadedTimeRanges(duration: TimeInterval) -> [Range<TimeInterval>] {
        guard duration > 0, duration.isFinite, let length, length > 0 else { return [] }
        return loaded.ranges.map { bytes in
            Double(bytes.lowerBound) / Double(length) * duration..<min(Double(bytes.upperBound) / Double(length) * duration, duration)
        }
    }

    /// Whether playing a file of `duration` seconds is likely to go on without stalling: the file is here from where
    /// reading is to its end, or at least `seconds` of it (``RemoteBuffering/likelyToKeepUpSeconds`` unless given), and
    /// the download has not failed.
    func isLikelyToKeepUp(duration: TimeInterval, ahead seconds: TimeInterval = RemoteBuffering.likelyToKeepUpSeconds) -> Bool {
        guard failure == nil else { return false }
        if isLoadedToEnd || seconds <= 0 { return true }
        guard let length, length > 0, duration > 0 else { return false }
        return Double(bytesAhead) / Double(length) * duration >= seconds
    }
}
