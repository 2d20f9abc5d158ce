import CALSA
import Glibc

/// An ALSA PCM as a ``PCMStream``: the one owner of a `snd_pcm_t*`, with one method per alsa-lib call, each turning
/// its return code into a ``DeviceError``. Nothing outside `ALSA/` sees alsa-lib.
///
/// A PCM that a plugin outside alsa-lib provides (a sound server's: PulseAudio, JACK, BlueALSA) is used
/// non-blocking, and a transfer that cannot move anything sleeps until about a period can be moved: alsa-lib's
/// wait spins on the PulseAudio plugin, whose descriptor stays readable while less than a fragment is there (an
/// audio thread at 50 % of a core). Kernel devices and alsa-lib's own plugins are used blocking, woken by the device.
///
/// **Thread safety**: as ``PCMStream`` says.
final class ALSAStream: PCMStream {
    let name: String
    let direction: StreamDirection
    private let handle: OpaquePointer
    /// The kind of PCM (hardware, plugin, sound server, `null`, `file`, …), read once when it is opened.
    private let type: snd_pcm_type_t
    /// Whether transfers wait by sleeping rather than in alsa-lib's poll.
    private var waitsBySleeping: Bool { type == SND_PCM_TYPE_IOPLUG }
    /// The rate and period, once configured: how long such a wait sleeps.
    private var rate = 48000
    private var periodFrames = 480

    /// Opens the PCM called `name` (e.g. "default", "hw:0", "null").
    ///
    /// The corresponding C functions are `snd_pcm_open`, `snd_pcm_type` and `snd_pcm_nonblock`.
    init(name: String, direction: StreamDirection) throws(DeviceError) {
        ALSALibrary.silenceErrorMessages()
        var handle: OpaquePointer?
        let stream = direction == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE
        try checkALSA(snd_pcm_open(&handle, name, stream, 0))
        guard let handle else { throw .notFound }
        self.name = name
        self.direction = direction
        self.handle = handle
        type = snd_pcm_type(handle)
        if waitsBySleeping { try checkALSA(snd_pcm_nonblock(handle, 1)) }
    }

    private var isClosed = false

    deinit { close() }

    /// The corresponding C function is `snd_pcm_close`.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        snd_pcm_close(handle)
    }

    var isClocked: Bool { type != SND_PCM_TYPE_NULL && type != SND_PCM_TYPE_FILE }

    /// The corresponding C functions are `snd_pcm_hw_params_*` and `snd_pcm_sw_params_*`.
    func configure(_ request: StreamRequest) throws(DeviceError) -> StreamConfiguration {
        var hardware: OpaquePointer?
        try checkALSA(snd_pcm_hw_params_malloc(&hardware))
        defer { snd_pcm_hw_params_free(hardware) }
        try checkALSA(snd_pcm_hw_params_any(handle, hardware))
        try checkALSA(snd_pcm_hw_params_set_access(handle, hardware, SND_PCM_ACCESS_RW_INTERLEAVED))
        // A sound server mixes in floats: handing it floats spares a conversion on each side.
        let formats = waitsBySleeping && request.formats.contains(.float32) ? [.float32] + request.formats : request.formats
        guard let format = formats.first(where: { snd_pcm_hw_params_test_format(handle, hardware, Self.alsaFormat($0)) == 0 }) else {
            throw .unsupportedConfiguration
        }
        try checkALSA(snd_pcm_hw_params_set_format(handle, hardware, Self.alsaFormat(format)))
        var channelCount = UInt32(request.channelCount)
        try checkALSA(snd_pcm_hw_params_set_channels_near(handle, hardware, &channelCount))
        var rate = UInt32(request.sampleRate)
        try checkALSA(snd_pcm_hw_params_set_rate_near(handle, hardware, &rate, nil))
        var period = snd_pcm_uframes_t(request.periodFrames)
        try checkALSA(snd_pcm_hw_params_set_period_size_near(handle, hardware, &period, nil))
        var buffer = period * snd_pcm_uframes_t(request.periods)
        try checkALSA(snd_pcm_hw_params_set_buffer_size_near(handle, hardware, &buffer))
        try checkALSA(snd_pcm_hw_params(handle, hardware))
        try checkALSA(snd_pcm_hw_params_get_period_size(hardware, &period, nil))
        try checkALSA(snd_pcm_hw_params_get_buffer_size(hardware, &buffer))

        var software: OpaquePointer?
        try checkALSA(snd_pcm_sw_params_malloc(&software))
        defer { snd_pcm_sw_params_free(software) }
        try checkALSA(snd_pcm_sw_params_current(handle, software))
        // Playback starts once a period is queued, so the first frame reaches the device without waiting for the
        // whole buffer; capture starts with the first read.
        let threshold = direction == .playback ? period : 1
        try checkALSA(snd_pcm_sw_params_set_start_threshold(handle, software, threshold))
        try checkALSA(snd_pcm_sw_params_set_avail_min(handle, software, period))
        try checkALSA(snd_pcm_sw_params(handle, software))
        self.rate = Int(rate)
        periodFrames = Int(period)
        return StreamConfiguration(
            sampleRate: Int(rate), channelCount: Int(channelCount), format: format, periodFrames: Int(period),
            bufferFrames: Int(buffer))
    }

    /// The corresponding C function is `snd_pcm_writei`.
    func write(_ buffer: UnsafeRawPointer, frames: Int) throws(DeviceError) -> Int {
        while true {
            let written = snd_pcm_writei(handle, buffer, snd_pcm_uframes_t(frames))
            if written == -Int(EAGAIN) && waitsBySleeping { return 0 }
            if written < 0 { throw DeviceError(alsaCode: Int32(written)) }
            try count(moved: written)
            return written
        }
    }

    /// The corresponding C function is `snd_pcm_readi`.
    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(DeviceError) -> Int {
        let read = snd_pcm_readi(handle, buffer, snd_pcm_uframes_t(frames))
        if read == -Int(EAGAIN) && waitsBySleeping { return 0 }
        if read < 0 { throw DeviceError(alsaCode: Int32(read)) }
        try count(moved: read)
        return read
    }

    /// Until about `frames` frames (a period at most) can be moved, as the stream's clock tells: one wake-up per
    /// transfer on a sound server instead of several; 0 when they can be now, and for a PCM whose transfers wait
    /// themselves. The corresponding C function is `snd_pcm_avail_update`.
    func waitingTime(for frames: Int) -> Double {
        guard waitsBySleeping else { return 0 }
        let available = snd_pcm_avail_update(handle)
        // An xrun or a failure: the transfer tells which, at once.
        guard available >= 0 else { return 0 }
        let missing = min(frames, periodFrames) - available
        return missing > 0 ? Double(missing) / Double(rate) : 0
    }

    /// Reads or writes in a row that may move no audio (xruns, or nothing at all) before a stream counts as failed:
    /// each one returns at once, so a stream stuck that way would keep its thread spinning.
    static let emptyTransferLimit = 1000

    /// Transfers in a row that moved no audio: returned nothing, or ended in an xrun (see ``recover(from:)``).
    private var emptyTransfers = 0

    /// Counts a transfer that moved `frames`; fails the stream once ``emptyTransferLimit`` in a row moved none.
    private func count(moved frames: Int) throws(DeviceError) {
        emptyTransfers = frames > 0 ? 0 : emptyTransfers + 1
        if emptyTransfers >= Self.emptyTransferLimit { throw .disconnected }
    }

    /// The corresponding C function is `snd_pcm_recover` (silent).
    func recover(from error: DeviceError) throws(DeviceError) {
        let code: Int32
        switch error {
        case .xrun:
            // An xrun moved no audio: one in a row of ``emptyTransferLimit`` that fail the stream.
            emptyTransfers += 1
            if emptyTransfers >= Self.emptyTransferLimit { throw error }
            code = EPIPE
        case .suspended:
            code = ESTRPIPE
        case .busy:
            // Another program took the device from the running stream: it starts again once it is free (EBUSY until
            // then).
            try checkALSA(snd_pcm_prepare(handle))
            return
        default:
            throw error
        }
        try checkALSA(snd_pcm_recover(handle, -code, 1))
    }

    /// The corresponding C function is `snd_pcm_delay`.
    var delay: Int {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(handle, &frames) == 0 ? max(0, frames) : 0
    }

    /// The corresponding C functions are `snd_pcm_hw_params_can_pause` (through `snd_pcm_pause`'s answer) and
    /// `snd_pcm_pause`.
    func setPaused(_ paused: Bool) -> Bool {
        snd_pcm_pause(handle, paused ? 1 : 0) == 0
    }

    /// The corresponding C functions are `snd_pcm_drop` and `snd_pcm_prepare`.
    func drop() {
        snd_pcm_drop(handle)
        snd_pcm_prepare(handle)
    }

    /// The corresponding C functions are `snd_pcm_drain` and `snd_pcm_prepare`.
    func drain() {
        // A non-blocking drain returns at once, and the prepare after it would drop what is still queued.
        if waitsBySleeping { snd_pcm_nonblock(handle, 0) }
        snd_pcm_drain(handle)
        if waitsBySleeping { snd_pcm_nonblock(handle, 1) }
        snd_pcm_prepare(handle)
    }

    private static func alsaFormat(_ format: SampleFormat) -> snd_pcm_format_t {
        switch format {
        case .int32: SND_PCM_FORMAT_S32_LE
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .int24: SND_PCM_FORMAT_S24_3LE
        case .int16: SND_PCM_FORMAT_S16_LE
        }
    }
}
