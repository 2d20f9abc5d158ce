import CSoundTouch

/// Changes tempo without changing pitch, by SoundTouch (WSOLA), on interleaved float frames: the
/// ``AudioTimePitchAlgorithm/timeDomain`` speed change.
///
/// Tuned for speech (``speechSettings``): SoundTouch's defaults are for music, and chop the sound into pieces (40 to
/// 90 ms) long enough to drop or double parts of syllables once the speed is 2 or more.
///
/// **Not thread-safe**: the decoder thread feeds and drains it.
final class TimeStretcher: SpeedChanger {
    private let handle: UnsafeMutableRawPointer
    private let channelCount: Int

    /// SoundTouch's time-stretch settings for speech, in milliseconds: the pieces the sound is chopped into
    /// (`SETTING_SEQUENCE_MS`), how far around each join the best match is sought (`SETTING_SEEKWINDOW_MS`) and how
    /// long two pieces overlap (`SETTING_OVERLAP_MS`). Measured by `Benchmarks/speech-stretch.py` on espeak-ng's speech
    /// (f0 102 Hz): the correlation of the output's syllable envelope with the input's, at speeds 0.5 / 1.5 / 2 / 3 / 4,
    /// is 0.96 / 0.95 / 0.92 / 0.85 / 0.77 with these, against 0.80 / 0.86 / 0.82 / 0.67 / 0.53 with the defaults and
    /// 0.95 / 0.93 / 0.82 / 0.67 / 0.53 with soundstretch's `-speech` (40/15/8); the pitch stays within 2 %. Shorter
    /// pieces (20/10/6) keep the envelope better still but no longer hold two pitch periods of a low voice: its pitch
    /// drifts by 6 % at 4 times.
    ///
    /// The join is sought by SoundTouch's quick seek (`SETTING_USE_QUICKSEEK`), a coarse-to-fine search rather than
    /// every offset of the window: the same script finds the envelope within 0.01 of the full search at every speed
    /// (0.96 / 0.95 / 0.91 / 0.84 / 0.76), for about a fifth of its cross-correlations, which were two thirds of what
    /// playing at 1.5 cost.
    static let speechSettings = (sequence: Int32(25), seekWindow: Int32(12), overlap: Int32(8))
    /// SoundTouch's setting ids (`SoundTouch.h`, which `SoundTouchDLL.h` does not include).
    private static let (quickSeekSetting, sequenceSetting, seekWindowSetting, overlapSetting) = (Int32(2), Int32(3), Int32(4), Int32(5))

    /// The corresponding C functions are `soundtouch_createInstance`, `soundtouch_setSampleRate`,
    /// `soundtouch_setChannels` and `soundtouch_setSetting`.
    init(sampleRate: Int, channelCount: Int) {
        handle = soundtouch_createInstance()
        self.channelCount = channelCount
        soundtouch_setSampleRate(handle, UInt32(sampleRate))
        soundtouch_setChannels(handle, UInt32(channelCount))
        soundtouch_setSetting(handle, Self.sequenceSetting, Self.speechSettings.sequence)
        soundtouch_setSetting(handle, Self.seekWindowSetting, Self.speechSettings.seekWindow)
        soundtouch_setSetting(handle, Self.overlapSetting, Self.speechSettings.overlap)
        soundtouch_setSetting(handle, Self.quickSeekSetting, 1)
    }

    deinit { soundtouch_destroyInstance(handle) }

    /// Playback speed: 0.5 is half speed, 2 is double; the pitch stays.
    ///
    /// The corresponding C function is `soundtouch_setTempo`.
    var speed: Float = 1 {
        didSet { soundtouch_setTempo(handle, speed) }
    }

    /// Feeds interleaved frames and hands what is ready to `emit`. The corresponding C functions are
    /// `soundtouch_putSamples` and `soundtouch_receiveSamples`.
    func process(
        _ frames: UnsafeBufferPointer<Float>, through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void
    ) {
        soundtouch_putSamples(handle, frames.baseAddress, UInt32(frames.count / channelCount))
        drain(through: output, emit)
    }

    /// Pushes the frames still held inside through, after the last input. The corresponding C function is
    /// `soundtouch_flush`, which pads them with silence: ``RateStage`` cuts that off.
    func flush(through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) {
        soundtouch_flush(handle)
        drain(through: output, emit)
    }

    private func drain(through output: UnsafeMutableBufferPointer<Float>, _ emit: (UnsafeBufferPointer<Float>) -> Void) {
        while case let produced = Int(soundtouch_receiveSamples(handle, output.baseAddress, UInt32(output.count / channelCount))), produced > 0 {
            emit(UnsafeBufferPointer(rebasing: output[..<(produced * channelCount)]))
        }
    }

    /// SoundTouch's version, e.g. "SoundTouch 2.3.2". The corresponding C function is
    /// `soundtouch_getVersionString`.
    static var version: String { "SoundTouch " + String(cString: soundtouch_getVersionString()) }
}
