import CSoundTouch

/// Changes tempo without changing pitch, by SoundTouch (WSOLA), on interleaved float frames.
///
/// **Not thread-safe**: the decoder thread feeds and drains it.
final class TimeStretcher {
    private let handle: UnsafeMutableRawPointer
    private let channelCount: Int

    /// The corresponding C functions are `soundtouch_createInstance`, `soundtouch_setSampleRate` and
    /// `soundtouch_setChannels`.
    init(sampleRate: Int, channelCount: Int) {
        handle = soundtouch_createInstance()
        self.channelCount = channelCount
        soundtouch_setSampleRate(handle, UInt32(sampleRate))
        soundtouch_setChannels(handle, UInt32(channelCount))
    }

    deinit { soundtouch_destroyInstance(handle) }

    /// Playback speed: 0.5 is half speed, 2 is double; the pitch stays.
    ///
    /// The corresponding C function is `soundtouch_setTempo`.
    var tempo: Float = 1 {
        didSet { soundtouch_setTempo(handle, tempo) }
    }

    /// Feeds interleaved frames. The corresponding C function is `soundtouch_putSamples`.
    func put(_ frames: UnsafeBufferPointer<Float>) {
        soundtouch_putSamples(handle, frames.baseAddress, UInt32(frames.count / channelCount))
    }

    /// Takes up to `output.count / channels` processed frames; returns how many.
    ///
    /// The corresponding C function is `soundtouch_receiveSamples`.
    func receive(into output: UnsafeMutableBufferPointer<Float>) -> Int {
        Int(soundtouch_receiveSamples(handle, output.baseAddress, UInt32(output.count / channelCount)))
    }

    /// Pushes the frames still held inside through, after the last input.
    ///
    /// The corresponding C function is `soundtouch_flush`.
    func flush() {
        soundtouch_flush(handle)
    }

    /// SoundTouch's version, e.g. "SoundTouch 2.3.2". The corresponding C function is
    /// `soundtouch_getVersionString`.
    static var version: String { "SoundTouch " + String(cString: soundtouch_getVersionString()) }
}
