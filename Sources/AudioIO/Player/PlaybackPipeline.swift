import FoundationEssentials
import SystemEdge

/// Builds what a player needs to sound: a voice on `engine` and the decoder thread that fills it, primed
/// so that the first periods never wait.
package enum PlaybackPipeline {
    /// The voice's ring, in seconds of device frames, at the least: enough to ride out a slow disk, small enough
    /// that a rate change is heard soon. It holds four device periods at the most: the render thread takes one at a
    /// time, and the decoder refills it from half empty.
    package static let ringSeconds = 0.25

    /// The ring, in device frames, for a voice on `engine`: four periods, and on one whose buffer is long about a
    /// second (up to eight periods), which the decoder refills a few times a second. There a rate change starts a new
    /// voice anyway (see ``StreamEngine/queuesLong``): the ring's length delays nothing.
    static func ringFrames(on engine: StreamEngine) -> Int {
        let period = engine.configuration.periodFrames
        let periods = engine.queuesLong ? min(8, max(4, engine.configuration.sampleRate / period)) : 4
        return max(Int(engine.sampleRate * ringSeconds), periods * period)
    }

    /// A primed voice (not yet in the mix) and its running decoder of `file`'s `range`, with the player's `controls`,
    /// its time `observers` and its `tap` applied; `file` is item `item`, played at `gain` dB before the controls' own
    /// gain.
    static func start(
        file: AudioFile, item: Int = 0, gain: Float = 0, range: PlaybackRange = PlaybackRange(), reportsItems: Bool = false,
        on engine: StreamEngine, owner: any VoiceOwner, startTime: TimeInterval,
        controls: PlaybackControls = PlaybackControls(), observers: TimeObservers = TimeObservers(), tap: PlayerTap? = nil,
        onError: @escaping @Sendable (AudioFileError) -> Void,
        onTimedMetadata: (@Sendable (_ item: Int, TimedMetadata) -> Void)? = nil,
        next: @escaping @Sendable (_ completedPasses: Int) -> NextSource
    ) throws -> (Voice, PlaybackDecoder) {
        let voice = Voice(
            channelCount: engine.configuration.channelCount, capacityFrames: ringFrames(on: engine),
            startingAt: startTime, item: item, reportsItems: reportsItems)
        voice.owner = owner
        controls.apply(to: voice)
        observers.prepare(voice)
        tap?.attach(to: voice, on: engine)
        let decoder = try PlaybackDecoder(
            file: file, item: item, gain: gain, range: range, voice: voice, deviceRate: engine.sampleRate, startTime: startTime,
            rate: controls.rate, enableRate: controls.enableRate, pitchAlgorithm: controls.pitchAlgorithm,
            skipsSilence: controls.skipsSilence, silenceSkipping: controls.silenceSkipping, next: next)
        decoder.onError = onError
        decoder.onTimedMetadata = onTimedMetadata
        decoder.start(pacedByDevice: !engine.isUnclocked)
        // A quarter of a ring ahead before play may start, so the first periods never wait for the decoder. Not for an
        // address: its bytes may take any time, which the player waits for without holding its lock.
        guard file.remote == nil else { return (voice, decoder) }
        let deadline = ContinuousClock.now + .seconds(5)
        while !voice.isPrimed.load(ordering: .acquiring), ContinuousClock.now < deadline {
            MonotonicClock.sleep(nanoseconds: 200_000)
        }
        return (voice, decoder)
    }
}
