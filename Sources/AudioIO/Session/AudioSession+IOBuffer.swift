import FoundationEssentials

extension AudioSession {
    /// The I/O buffer duration a stream opened from now on asks of its device, in seconds: how much audio its thread
    /// moves at a time, and so how often it wakes. A playback device keeps four of these queued; a capture device holds
    /// as many as make half a second, so that a late capture thread loses nothing.
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

    /// What a playback stream opened now asks of its device: `sampleRate`, `channelCount` and `formats` (best
    /// first), in four periods of ``preferredIOBufferDuration``: what is queued is heard that much later.
    func streamRequest(sampleRate: Int, channelCount: Int, formats: [SampleFormat]) -> StreamRequest {
        StreamRequest(
            sampleRate: sampleRate, channelCount: channelCount, formats: formats,
            periodFrames: periodFrames(at: sampleRate), periods: 4)
    }

    /// What a capture stream opened now asks of its device: periods of ``preferredIOBufferDuration``, as many as
    /// hold ``captureBufferDuration``. A long capture buffer costs no latency (each period is read as it comes) and
    /// lets the capture thread be late, on a busy machine or behind a sound server that hands audio over in bursts,
    /// without an overrun: `arecord` keeps 500 ms, PulseAudio 2 s.
    func captureRequest(sampleRate: Int, channelCount: Int, formats: [SampleFormat]) -> StreamRequest {
        let periodFrames = periodFrames(at: sampleRate)
        let bufferFrames = Int((Double(sampleRate) * Self.captureBufferDuration).rounded(.up))
        return StreamRequest(
            sampleRate: sampleRate, channelCount: channelCount, formats: formats, periodFrames: periodFrames,
            periods: max(4, (bufferFrames + periodFrames - 1) / periodFrames))
    }

    /// Seconds of input a capture device is asked to hold (see ``captureRequest(sampleRate:channelCount:formats:)``).
    static let captureBufferDuration: TimeInterval = 0.5

    private func periodFrames(at sampleRate: Int) -> Int {
        max(32, Int((Double(sampleRate) * preferredIOBufferDuration).rounded()))
    }

    /// What a player's stream asks of its device: 48 kHz stereo, in the sample formats that carry a float mix best.
    var playbackRequest: StreamRequest {
        streamRequest(sampleRate: 48000, channelCount: 2, formats: [.int32, .float32, .int16])
    }
}
