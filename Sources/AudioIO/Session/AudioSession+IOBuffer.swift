import FoundationEssentials

extension AudioSession {
    /// The I/O buffer duration a stream opened from now on asks of its device, in seconds: how much audio its thread
    /// moves at a time, and so how often it wakes. The device keeps four of these buffered.
    ///
    /// Short durations (the default, 10 ms) suit synchronized starts, live monitoring and quick response to
    /// ``BasePlayer/pause()`` and ``BasePlayer/currentTime``; long ones (up to 0.5 s) cost far less CPU on a
    /// sound server, as `aplay` and `arecord` run (125 ms). With a buffer over 100 ms a player still pauses, seeks and
    /// changes volume and rate at once: it goes on from what was heard, and the device's queue is dropped once no
    /// other player on the device sounds (one that does keeps the queue, which then plays out).
    public var preferredIOBufferDuration: TimeInterval { state.withLock { $0.preferredIOBufferDuration } }

    /// Sets ``preferredIOBufferDuration``, clamped to 1 ms … 0.5 s. A stream open already keeps its buffer for as
    /// long as the process has it open: set this before the first player, recorder or meter opens its device.
    ///
    /// Unlike `AVAudioSession`'s, it does not throw: there is nothing it could fail on.
    public func setPreferredIOBufferDuration(_ duration: TimeInterval) {
        let clamped = duration.isNaN ? Self.defaultIOBufferDuration : min(max(duration, 0.001), 0.5)
        state.withLock { $0.preferredIOBufferDuration = clamped }
    }

    /// The I/O buffer duration of the streams in use, in seconds: that of the playback stream open in this process
    /// (the capture stream if there is none), else ``preferredIOBufferDuration``.
    public var ioBufferDuration: TimeInterval {
        let engine = StreamEngine.all(.playback).first ?? StreamEngine.all(.capture).first
        guard let engine else { return preferredIOBufferDuration }
        return Double(engine.configuration.periodFrames) / engine.sampleRate
    }

    /// Seconds between a frame played and its being heard, as `AVAudioSession.outputLatency`: what the playback stream
    /// open in this process held queued at its last write (a sound server's own buffer included), 0 when none is open.
    /// A change made to what plays is heard this much later, unless the players drop the queue (see
    /// ``preferredIOBufferDuration``); a fade is.
    public var outputLatency: TimeInterval {
        guard let engine = StreamEngine.all(.playback).first else { return 0 }
        return Double(engine.queuedFrames.load(ordering: .relaxed)) / engine.sampleRate
    }

    /// ``preferredIOBufferDuration`` until it is set: 10 ms.
    static let defaultIOBufferDuration: TimeInterval = 0.01

    /// What a stream opened now asks of its device: `sampleRate`, `channelCount` and `formats` (best first), in
    /// four periods of ``preferredIOBufferDuration``.
    func streamRequest(sampleRate: Int, channelCount: Int, formats: [SampleFormat]) -> StreamRequest {
        let periodFrames = max(32, Int((Double(sampleRate) * preferredIOBufferDuration).rounded()))
        return StreamRequest(
            sampleRate: sampleRate, channelCount: channelCount, formats: formats, periodFrames: periodFrames, periods: 4)
    }

    /// What a player's stream asks of its device: 48 kHz stereo, in the sample formats that carry a float mix best.
    var playbackRequest: StreamRequest {
        streamRequest(sampleRate: 48000, channelCount: 2, formats: [.int32, .float32, .int16])
    }
}
