/// Which way audio goes through a stream.
enum StreamDirection: Sendable {
    /// Frames are written to the device, which plays them.
    case playback
    /// Frames are read from the device, which captures them.
    case capture
}

/// What a stream asks of its device: the rate and channel count it would like, the sample formats it takes, best
/// first, and its buffer: `periods` periods of `periodFrames` frames. The device may agree on other numbers (see
/// ``StreamConfiguration``).
struct StreamRequest: Equatable, Sendable {
    var sampleRate: Int
    var channelCount: Int
    var formats: [SampleFormat]
    /// Frames per period: the unit the stream's thread moves at a time, and how often it wakes.
    var periodFrames: Int
    /// Periods in the device buffer.
    var periods: Int
}

/// What the device agreed to.
struct StreamConfiguration: Equatable, Sendable {
    var sampleRate: Int
    var channelCount: Int
    var format: SampleFormat
    /// Frames per period: the unit the stream's thread moves at a time.
    var periodFrames: Int
    /// Frames in the whole device buffer: the most the device holds ahead.
    var bufferFrames: Int

    /// Bytes one frame takes.
    var bytesPerFrame: Int { channelCount * format.bytesPerSample }
}

/// What a device (a stream, a card's controls) ran into, named for what happened to it; ``AudioDeviceError`` tells it
/// to the library's users.
enum DeviceError: Error, Equatable, Sendable {
    /// An underrun (playback) or overrun (capture): frames were lost; ``PCMStream/recover(from:)`` goes on.
    case xrun
    /// The system suspended the device; ``PCMStream/recover(from:)`` resumes it.
    case suspended
    /// The device went away: unplugged, its driver unloaded, its sound server gone.
    case disconnected
    /// Another program holds the device.
    case busy
    /// There is no such device.
    case notFound
    /// This process may not use the device.
    case permissionDenied
    /// The device takes none of the formats, rates or channel counts asked for.
    case unsupportedConfiguration
    /// Anything else, in the device library's words.
    case failed(String)
}

/// A device stream as the engine drives it: the one boundary between ``StreamEngine`` and a device. Two kinds
/// implement it: an ALSA PCM (``ALSAStream``, the only code that calls alsa-lib's `snd_pcm_*`) and ``NullStream``,
/// which has no device: unclocked, on a virtual clock, or handing what is played to a sink (offline rendering).
/// ``StreamFactory`` chooses between them by the device's name.
///
/// **Thread safety**: configure it on one thread, then hand it to the stream's thread, which alone calls every
/// other member; while that thread waits for it, the engine's event thread may call ``recover(from:)`` after a
/// suspension.
protocol PCMStream: AnyObject {
    /// The device's name, e.g. "default", "hw:1", "pulse".
    var name: String { get }
    /// Which way audio goes.
    var direction: StreamDirection { get }
    /// Whether the stream runs on a clock of its own. One that does not (ALSA's `null` and `file` PCMs, an unclocked
    /// ``NullStream``) takes and gives frames as fast as they are asked for.
    var isClocked: Bool { get }

    /// Sets the format, rate, channels and buffer as near `request` as the device takes; returns what it agreed.
    func configure(_ request: StreamRequest) throws(DeviceError) -> StreamConfiguration
    /// Writes up to `frames` interleaved frames from `buffer`; returns how many the device took, waiting for room — or
    /// 0 at once from a stream that does not wait (a sound server's), which ``waitingTime(for:)`` then tells how long
    /// to wait, so that the engine can be woken meanwhile.
    func write(_ buffer: UnsafeRawPointer, frames: Int) throws(DeviceError) -> Int
    /// Seconds until about `frames` frames (a period at most) can be written or read without waiting: 0 when they can
    /// be now, and for a stream whose transfers wait by themselves.
    func waitingTime(for frames: Int) -> Double
    /// Reads up to `frames` interleaved frames into `buffer`; returns how many, waiting for some to arrive — or 0 at
    /// once from a stream that does not wait, as ``write(_:frames:)`` does.
    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(DeviceError) -> Int
    /// Brings the stream back after ``DeviceError/xrun`` or ``DeviceError/suspended``; rethrows what cannot be.
    func recover(from error: DeviceError) throws(DeviceError)
    /// Frames between what is written now and what is heard now (playback), or captured and not yet read.
    var delay: Int { get }
    /// Holds the stream where it is, keeping what is queued, or lets it go on; false when the device cannot.
    func setPaused(_ paused: Bool) -> Bool
    /// Stops at once, dropping what is queued, ready to start again.
    func drop()
    /// Waits until everything written has been played, then is ready to start again.
    func drain()
    /// Lets the device go; nothing else is called after.
    func close()
}
