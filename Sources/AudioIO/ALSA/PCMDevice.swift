import CALSA
import Glibc

/// How samples are laid out in the device's buffer.
package enum PCMSampleFormat: Equatable, Sendable {
    /// 32-bit signed little-endian integers: exact for 16- and 24-bit sources.
    case int32
    /// 32-bit IEEE float, little-endian.
    case float32
    /// 24-bit signed little-endian integers in three bytes (`S24_3LE`), as USB microphones give them.
    case int24
    /// 16-bit signed little-endian integers, which every device takes.
    case int16

    var bytesPerSample: Int {
        switch self {
        case .int16: 2
        case .int24: 3
        case .int32, .float32: 4
        }
    }

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .int32: SND_PCM_FORMAT_S32_LE
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .int24: SND_PCM_FORMAT_S24_3LE
        case .int16: SND_PCM_FORMAT_S16_LE
        }
    }
}

/// What a stream asks of its device: the rate and channel count it would like, and the sample formats it
/// takes, best first. The device may agree on another rate or channel count (see ``PCMConfiguration``).
struct PCMRequest: Equatable, Sendable {
    var sampleRate: Int
    var channelCount: Int
    var formats: [PCMSampleFormat]
}

/// What the device agreed to.
struct PCMConfiguration: Equatable, Sendable {
    var sampleRate: Int
    var channelCount: Int
    var format: PCMSampleFormat
    /// Frames per period: the unit the audio thread reads or writes.
    var periodFrames: Int
    /// Frames in the whole device buffer: the most the device holds ahead.
    var bufferFrames: Int
}

/// The one owner of a `snd_pcm_t*`: one method per alsa-lib call, each turning its return code into an
/// `ALSAError`. Nothing outside `ALSA/` sees alsa-lib.
///
/// **Thread safety**: configure it on one thread, then hand it to the audio thread, which alone calls
/// ``write(_:frames:)`` / ``read(into:frames:)``, ``recover(from:)``, ``delay()`` and ``stop()`` (or, after
/// a suspend, the event thread calls ``recover(from:)`` while the audio thread waits for it).
final class PCMDevice {
    enum Direction { case playback, capture }

    let name: String
    let direction: Direction
    private let handle: OpaquePointer
    /// The kind of PCM (hardware, plugin, sound server, `null`, `file`, …), read once when it is opened.
    private let type: snd_pcm_type_t
    /// Whether transfers wait by sleeping rather than in alsa-lib's poll, see ``init(name:direction:)``.
    private var waitsBySleeping: Bool { type == SND_PCM_TYPE_IOPLUG }
    /// How long such a wait sleeps: half a period, once configured.
    private var sleep = timespec(tv_sec: 0, tv_nsec: 5_000_000)

    /// Opens the PCM called `name` (e.g. "default", "hw:0", "null").
    ///
    /// A PCM that a plugin outside alsa-lib provides (a sound server's: PulseAudio, JACK, BlueALSA) is used
    /// non-blocking, and a transfer that cannot move anything sleeps half a period before it tries again:
    /// alsa-lib's wait spins on the PulseAudio plugin, whose descriptor stays readable while less than a
    /// fragment is there (an audio thread at 50 % of a core, where a sleep costs a hundred wakeups a
    /// second). Kernel devices and alsa-lib's own plugins are used blocking, woken by the device.
    ///
    /// The corresponding C functions are `snd_pcm_open`, `snd_pcm_type` and `snd_pcm_nonblock`.
    init(name: String, direction: Direction) throws(ALSAError) {
        ALSALibrary.silenceErrorMessages()
        var handle: OpaquePointer?
        let stream = direction == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE
        try check(snd_pcm_open(&handle, name, stream, 0), "snd_pcm_open")
        guard let handle else { throw ALSAError(code: -ENODEV, function: "snd_pcm_open") }
        self.name = name
        self.direction = direction
        self.handle = handle
        type = snd_pcm_type(handle)
        if waitsBySleeping { try check(snd_pcm_nonblock(handle, 1), "snd_pcm_nonblock") }
    }

    deinit { snd_pcm_close(handle) }

    /// Whether the PCM runs on a clock of its own. ALSA's `null` and `file` PCMs (the test rig's devices)
    /// take and give frames as fast as they are asked: a thread reading them never waits.
    ///
    var isClocked: Bool { type != SND_PCM_TYPE_NULL && type != SND_PCM_TYPE_FILE }

    /// Sets interleaved access, the first of the request's formats the device takes, the channel count and rate
    /// nearest the request's, and a buffer of about `periods` periods of `periodFrames`; returns what was agreed.
    ///
    /// The corresponding C functions are `snd_pcm_hw_params_*` and `snd_pcm_sw_params_*`.
    func configure(_ request: PCMRequest, periodFrames: Int, periods: Int) throws(ALSAError) -> PCMConfiguration {
        var hardware: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hardware), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(hardware) }
        try check(snd_pcm_hw_params_any(handle, hardware), "snd_pcm_hw_params_any")
        try check(snd_pcm_hw_params_set_access(handle, hardware, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        guard let format = request.formats.first(where: { snd_pcm_hw_params_test_format(handle, hardware, $0.alsaFormat) == 0 }) else {
            throw ALSAError(code: -EINVAL, function: "snd_pcm_hw_params_set_format")
        }
        try check(snd_pcm_hw_params_set_format(handle, hardware, format.alsaFormat), "snd_pcm_hw_params_set_format")
        var channelCount = UInt32(request.channelCount)
        try check(snd_pcm_hw_params_set_channels_near(handle, hardware, &channelCount), "snd_pcm_hw_params_set_channels_near")
        var rate = UInt32(request.sampleRate)
        try check(snd_pcm_hw_params_set_rate_near(handle, hardware, &rate, nil), "snd_pcm_hw_params_set_rate_near")
        var period = snd_pcm_uframes_t(periodFrames)
        try check(snd_pcm_hw_params_set_period_size_near(handle, hardware, &period, nil), "snd_pcm_hw_params_set_period_size_near")
        var buffer = period * snd_pcm_uframes_t(periods)
        try check(snd_pcm_hw_params_set_buffer_size_near(handle, hardware, &buffer), "snd_pcm_hw_params_set_buffer_size_near")
        try check(snd_pcm_hw_params(handle, hardware), "snd_pcm_hw_params")
        try check(snd_pcm_hw_params_get_period_size(hardware, &period, nil), "snd_pcm_hw_params_get_period_size")
        try check(snd_pcm_hw_params_get_buffer_size(hardware, &buffer), "snd_pcm_hw_params_get_buffer_size")

        var software: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&software), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(software) }
        try check(snd_pcm_sw_params_current(handle, software), "snd_pcm_sw_params_current")
        // Playback starts once a period is queued, so the first frame reaches the device without waiting
        // for the whole buffer; capture starts with the first read.
        let threshold = direction == .playback ? period : 1
        try check(snd_pcm_sw_params_set_start_threshold(handle, software, threshold), "snd_pcm_sw_params_set_start_threshold")
        try check(snd_pcm_sw_params_set_avail_min(handle, software, period), "snd_pcm_sw_params_set_avail_min")
        try check(snd_pcm_sw_params(handle, software), "snd_pcm_sw_params")
        let halfPeriod = Int(period) * 500_000_000 / Int(rate)
        sleep = timespec(tv_sec: 0, tv_nsec: halfPeriod)
        return PCMConfiguration(
            sampleRate: Int(rate), channelCount: Int(channelCount), format: format,
            periodFrames: Int(period), bufferFrames: Int(buffer))
    }

    /// Writes `frames` interleaved frames from `buffer`; returns how many the device took (blocks until
    /// there is room). An underrun surfaces as an `ALSAError` with ``ALSAError/isXrun``.
    ///
    /// The corresponding C function is `snd_pcm_writei`.
    func write(_ buffer: UnsafeRawPointer, frames: Int) throws(ALSAError) -> Int {
        while true {
            let written = snd_pcm_writei(handle, buffer, snd_pcm_uframes_t(frames))
            if written == -Int(EAGAIN) && waitsBySleeping {
                nanosleep(&sleep, nil)
                continue
            }
            if written < 0 { throw ALSAError(code: Int32(written), function: "snd_pcm_writei") }
            try count(moved: written, "snd_pcm_writei")
            return written
        }
    }

    /// Reads or writes in a row that may move no audio (xruns, or nothing at all) before a stream counts
    /// as failed: each one returns at once, so a stream stuck that way would keep its thread spinning.
    static let emptyTransferLimit = 1000

    /// Transfers in a row that moved no audio: returned nothing, or ended in an xrun (see ``recover(from:)``).
    private var emptyTransfers = 0

    /// Counts a transfer that moved `frames`; throws `-EIO` once ``emptyTransferLimit`` in a row moved none.
    private func count(moved frames: Int, _ function: String) throws(ALSAError) {
        emptyTransfers = frames > 0 ? 0 : emptyTransfers + 1
        if emptyTransfers >= Self.emptyTransferLimit { throw ALSAError(code: -EIO, function: function) }
    }

    /// Reads up to `frames` interleaved frames into `buffer`; returns how many (blocks until some arrive).
    ///
    /// The corresponding C function is `snd_pcm_readi`.
    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(ALSAError) -> Int {
        var read = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        while read == -Int(EAGAIN) && waitsBySleeping {
            nanosleep(&sleep, nil)
            read = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        }
        if read < 0 { throw ALSAError(code: Int32(read), function: "snd_pcm_readi") }
        try count(moved: read, "snd_pcm_readi")
        return read
    }

    /// Brings the stream back after an xrun or a resume from suspend; rethrows what cannot be recovered.
    ///
    /// The corresponding C function is `snd_pcm_recover` (silent).
    func recover(from error: ALSAError) throws(ALSAError) {
        // An xrun moved no audio: one in a row of ``emptyTransferLimit`` that fail the stream.
        if error.isXrun {
            emptyTransfers += 1
            if emptyTransfers >= Self.emptyTransferLimit { throw error }
        }
        try check(snd_pcm_recover(handle, -error.code, 1), "snd_pcm_recover")
    }

    /// Frames between what is written now and what is heard now (playback), or captured but not read.
    ///
    /// The corresponding C function is `snd_pcm_delay`.
    func delay() -> Int {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(handle, &frames) == 0 ? max(0, frames) : 0
    }

    /// Stops at once, dropping what is queued, and prepares the stream to start again.
    ///
    /// The corresponding C functions are `snd_pcm_drop` and `snd_pcm_prepare`.
    func stop() {
        snd_pcm_drop(handle)
        snd_pcm_prepare(handle)
    }

    /// Waits until everything written has been played.
    ///
    /// The corresponding C function is `snd_pcm_drain`.
    func drain() {
        // A non-blocking drain returns at once, and the prepare after it would drop what is still queued.
        if waitsBySleeping { snd_pcm_nonblock(handle, 0) }
        snd_pcm_drain(handle)
        if waitsBySleeping { snd_pcm_nonblock(handle, 1) }
        snd_pcm_prepare(handle)
    }
}
