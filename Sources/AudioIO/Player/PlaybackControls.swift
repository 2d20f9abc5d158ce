import FoundationEssentials

/// What a listener sets on a player — volume, gain, pan, rate, silence skipping, metering — and the levels it last read,
/// held in a player's state (``AudioPlayer`` and ``AudioQueuePlayer`` alike) and handed to each voice and decoder it
/// makes.
///
/// **Threads**: a value under its player's lock; it reaches the render and decoder threads through the voice's
/// and decoder's atomics only.
struct PlaybackControls {
    /// Linear gain, 0…1.
    private(set) var volume: Float = 1
    /// A fixed gain in dB before the volume, −96…+48 (a loudness normalization's).
    private(set) var gain: Float = 0
    /// Seconds over which the last volume change moves, 0 at once.
    private(set) var fadeDuration: TimeInterval = 0
    /// Balance, −1…1.
    private(set) var pan: Float = 0
    /// Whether the decoder gets a rate stage, so that ``rate`` applies.
    var enableRate = false
    /// Speed, ``rates`` (0.25…4).
    private(set) var rate: Float = 1
    /// Whether pauses are shortened.
    private(set) var skipsSilence = false
    /// How pauses are shortened: handed to each new decoder.
    var silenceSkipping = SilenceSkipping()
    /// How the speed is changed: pitch kept (SoundTouch) or following the speed (libsoxr).
    var pitchAlgorithm = AudioTimePitchAlgorithm.timeDomain
    private(set) var isMeteringEnabled = false
    /// The levels taken by the last ``updateMeters(from:fileChannels:)``.
    private var levels = AudioLevels(peak: [], average: [])
    private var meter = VoiceMeter()
    /// What was heard of a voice that ended before its levels were taken: the next ``updateMeters(from:fileChannels:heardUpTo:)``
    /// without a voice reports it.
    private var endedVoiceLevels: AudioLevels?

    /// Settings at their defaults (unity volume, centre, rate 1, no metering); `enableRate` as given.
    init(enableRate: Bool = false) {
        self.enableRate = enableRate
    }

    /// The speed the decoder plays at: ``rate`` when enabled, else 1.
    var effectiveRate: Float { enableRate ? rate : 1 }

    /// What a voice multiplies its samples by: ``volume`` after ``gain``.
    private var voiceGain: Float { volume * Float(AudioLevels.amplitude(Double(gain))) }

    /// Clamps `volume` to 0…1 and moves `voice` to it over `fadeDuration` seconds (0 = at once).
    mutating func setVolume(_ volume: Float, fadeDuration: TimeInterval, voice: Voice?, engine: StreamEngine?) {
        self.volume = min(max(volume, 0), 1)
        self.fadeDuration = max(fadeDuration, 0)
        guard let voice, let engine else { return }
        voice.volumeBits.store(voiceGain.bitPattern, ordering: .relaxed)
        voice.fadeFrames.store(Int(Int64(frames: self.fadeDuration, rate: engine.sampleRate)), ordering: .relaxed)
        voice.volumeGeneration.wrappingIncrement(ordering: .releasing)
    }

    /// Clamps `gain` to −96…+48 dB and hands `voice` the gain it makes with the volume, at once.
    mutating func setGain(_ gain: Float, voice: Voice?) {
        self.gain = Self.clamped(gain: gain)
        guard let voice else { return }
        voice.volumeBits.store(voiceGain.bitPattern, ordering: .relaxed)
        voice.fadeFrames.store(0, ordering: .relaxed)
        voice.volumeGeneration.wrappingIncrement(ordering: .releasing)
    }

    /// `gain` in dB within −96…+48, 0 when it is not a number.
    static func clamped(gain: Float) -> Float {
        gain.isFinite ? min(max(gain, -96), 48) : 0
    }

    /// Clamps `pan` to −1…1 and hands it to `voice`.
    mutating func setPan(_ pan: Float, voice: Voice?) {
        self.pan = min(max(pan, -1), 1)
        voice?.panBits.store(self.pan.bitPattern, ordering: .relaxed)
    }

    /// The speeds a player plays at: a quarter to four times (`AVPlayer` allows beyond `AVAudioPlayer`'s 0.5…2).
    static let rates: ClosedRange<Float> = 0.25...4

    /// Clamps `rate` to ``rates`` (a value that is not a number leaves it as it was) and hands it to `decoder`, which
    /// changes speed from its next step.
    mutating func setRate(_ rate: Float, decoder: PlaybackDecoder?) {
        guard !rate.isNaN else { return }
        self.rate = min(max(rate, Self.rates.lowerBound), Self.rates.upperBound)
        decoder?.rateBits.store(self.rate.bitPattern, ordering: .relaxed)
    }

    /// Turns the skipping of silence on or off, in `decoder` from its next stretch of frames.
    mutating func setSkipsSilence(_ skips: Bool, decoder: PlaybackDecoder?) {
        skipsSilence = skips
        decoder?.skipsSilence.store(skips, ordering: .relaxed)
    }

    /// Turns the measuring of `voice`'s levels on or off.
    mutating func setMetering(_ isEnabled: Bool, voice: Voice?) {
        isMeteringEnabled = isEnabled
        voice?.isMeteringEnabled.store(isEnabled, ordering: .relaxed)
    }

    /// Hands every setting to a new voice and its decoder, before they play.
    func apply(to voice: Voice) {
        voice.gain = voiceGain
        voice.volumeBits.store(voiceGain.bitPattern, ordering: .relaxed)
        voice.panBits.store(pan.bitPattern, ordering: .relaxed)
        voice.isMeteringEnabled.store(isMeteringEnabled, ordering: .relaxed)
    }

    /// Takes the levels heard of `voice` since the last call (silence in `fileChannels` channels without one), up to
    /// `heard` seconds into the file (by default, what the voice has mixed).
    mutating func updateMeters(from voice: Voice?, fileChannels: Int, heardUpTo heard: TimeInterval? = nil) {
        defer { endedVoiceLevels = nil }
        levels = voice.map { meter.take(from: $0, fileChannels: fileChannels, heardUpTo: heard ?? $0.position) }
            ?? endedVoiceLevels ?? LevelAccumulator(channelCount: fileChannels).levels
    }

    /// `voice` played to its end: keeps what was heard of it since the last ``updateMeters(from:fileChannels:heardUpTo:)``
    /// for the next, which would otherwise find no voice and read silence.
    mutating func voiceEnded(_ voice: Voice, fileChannels: Int) {
        guard isMeteringEnabled else { return }
        endedVoiceLevels = meter.take(from: voice, fileChannels: fileChannels, heardUpTo: .infinity)
    }

    /// Peak level of `channel` at the last ``updateMeters(from:fileChannels:)``, in dBFS; −160 for one not there.
    func peakPower(forChannel channel: Int) -> Float {
        levels.peak.indices.contains(channel) ? Float(levels.peak[channel]) : Float(AudioLevels.floor)
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters(from:fileChannels:)``, in dBFS.
    func averagePower(forChannel channel: Int) -> Float {
        levels.average.indices.contains(channel) ? Float(levels.average[channel]) : Float(AudioLevels.floor)
    }
}
