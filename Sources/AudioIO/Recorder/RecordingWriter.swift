import Dispatch
import SystemEdge
import FoundationEssentials
import Synchronization

/// The writer thread of one recording: drains its tap's ring, fills the gaps the capture thread recorded
/// with silence of their length, resamples to the file's rate with libsoxr when the device's differs, cleans up speech
/// when asked (``SpeechEnhancer``: here, never on the capture thread), measures the levels, the waveform and the
/// loudness of what it writes (the whole recording's, in one pass: at the end only the loudness's last sums are left
/// to do), counts the samples a device gone wrong delivers as NaN or infinity (silence to all but a float file), and
/// writes through an
/// ``AudioFileWriter``, which keeps a WAV or CAF header valid after every write and writes Opus page by
/// page: a process killed mid-recording leaves a file with what reached the disk.
///
/// While the input runs it writes once ``minimumBlockSeconds`` and ``minimumBlockPeriods`` are waiting, so that the disk
/// sees few, large writes and the writer wakes little (a killed process loses at most that and what the device held:
/// 0.75 s in 250 ms periods), and syncs the file every ``syncInterval``, so that a power cut takes at most that much
/// more than a killed process does.
final class RecordingWriter: @unchecked Sendable {
    /// Frames taken from the ring per step at most: a block of two 250 ms periods at 48 kHz in one.
    static let chunkFrames = 32768
    /// Seconds of audio to wait for before writing, while the input runs.
    static let minimumBlockSeconds = 0.2
    /// Device periods to wait for before writing, while the input runs: a wake costs tens of microseconds of CPU, and
    /// each write has libsndfile rewrite the header, so a recording in long periods (no meter to draw) writes every
    /// other one.
    static let minimumBlockPeriods = 2
    /// Seconds between two syncs of the file to the disk.
    static let syncInterval: Duration = .seconds(1)

    private let tap: CaptureTap
    private let audio: SPSCRing<Float>
    private let file: AudioFileWriter
    private let deviceRate: Double
    private let resampler: Resampler?
    private let enhancer: SpeechEnhancer?
    private let inputEnded: @Sendable () -> Bool
    private let finished = DispatchSemaphore(value: 0)
    /// Cuts the writer's sleep short when the recording is being finished: its input ends within a moment.
    private let finishing = DispatchSemaphore(value: 0)
    private let isFinishing = Atomic<Bool>(false)
    private let outcome = Mutex<Outcome?>(nil)
    /// Markers added while recording, handed to the file when it is closed; `nil` once it is.
    private let markers = Mutex<[AudioMarker]?>([])
    private var meter: AudioMeasurement
    /// Samples the tap delivered as NaN or ±infinity (a device gone wrong): writer thread only.
    private var nonFiniteSamples: Int64 = 0

    /// What a finished writer leaves: what it wrote, and why it stopped early, if it did.
    struct Outcome {
        /// Frames, levels and size of the file as it is now.
        var summary: AudioFileSummary
        /// The write that failed; the file holds what was written before.
        var error: AudioFileError?
    }

    /// Called on the writer thread when writing fails, after the file is closed with what was written.
    var onError: (@Sendable (AudioFileError) -> Void)?

    /// Prepares to write what `tap` captures at `deviceRate` into `file`, its speech cleaned up as `speechEnhancement`
    /// says if it is given; `inputEnded` says when the tap gets nothing more.
    ///
    /// - Throws: ``AudioFileError`` when libsoxr refuses the rates, or webrtc-audio-processing the file's.
    init(
        tap: CaptureTap, file: AudioFileWriter, deviceRate: Double, speechEnhancement: SpeechEnhancement? = nil,
        inputEnded: @escaping @Sendable () -> Bool
    ) throws(AudioFileError) {
        guard let audio = tap.audio else { preconditionFailure("a recording's tap has an audio ring") }
        self.tap = tap
        self.audio = audio
        self.file = file
        self.deviceRate = deviceRate
        self.inputEnded = inputEnded
        meter = AudioMeasurement(channelCount: tap.channelCount, sampleRate: file.settings.sampleRate, measuringLoudness: true)
        do {
            resampler = deviceRate == file.settings.sampleRate ? nil : try Resampler(
                inputRate: deviceRate, outputRate: file.settings.sampleRate, channelCount: tap.channelCount)
        } catch {
            throw AudioFileError(path: file.url.path, reason: .writeFailed("resampling failed: \(error)"))
        }
        do {
            enhancer = try speechEnhancement.map { settings throws(SpeechEnhancer.Refusal) in
                try SpeechEnhancer(sampleRate: file.settings.sampleRate, channelCount: tap.channelCount, settings: settings)
            }
        } catch {
            throw AudioFileError(path: file.url.path, reason: .unsupported(error.description))
        }
    }

    /// Whether the capture thread fills the ring at the pace of a device's clock: set by ``start(pacedByDevice:)``.
    private var pacedByDevice = false

    /// Adds `marker` to those the file gets when it is closed; false when it is closed or closing already.
    func addMarker(_ marker: AudioMarker) -> Bool {
        markers.withLock { markers in
            markers?.append(marker)
            return markers != nil
        }
    }

    /// Starts the writer thread; `pacedByDevice` when the tap captures from a device with a clock.
    func start(pacedByDevice: Bool) {
        self.pacedByDevice = pacedByDevice
        SystemThread.detach(name: "audio-writer", realtime: false) { [self] in run() }
    }

    /// Waits until the input has ended and the file is finished and closed, or writing failed.
    func waitUntilFinished() -> Outcome {
        if !isFinishing.exchange(true, ordering: .acquiringAndReleasing) { finishing.signal() }
        finished.wait()
        finished.signal()
        return outcome.withLock { $0! }
    }

    private func run() {
        let channels = tap.channelCount
        let chunk = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.chunkFrames * channels)
        let silence = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.chunkFrames * channels)
        silence.initialize(repeating: 0)
        let resampledFrames = Int((Double(Self.chunkFrames) * file.settings.sampleRate / deviceRate).rounded(.up)) + 256
        let resampled = UnsafeMutableBufferPointer<Float>.allocate(capacity: resampledFrames * channels)
        let measured = UnsafeMutableBufferPointer<Float>.allocate(capacity: Self.chunkFrames * channels)
        defer { [chunk, silence, resampled, measured].forEach { $0.deallocate() } }
        var failure: AudioFileError?
        do {
            try drain(chunk: chunk, silence: silence, resampled: resampled, measured: measured)
            try resampler?.flushAll(through: resampled) { try write($0) }
            try enhancer?.finish { try store($0) }
            file.markers += markers.withLock { markers in
                defer { markers = nil }
                return markers ?? []
            }
            try file.close()
        } catch {
            try? file.close()
            failure = error as? AudioFileError
                ?? AudioFileError(path: file.url.path, reason: .writeFailed("resampling failed: \(error)"))
        }
        let size = FileManager.default.sizeOfItem(atPath: file.url.path) ?? 0
        // After a failed write the file may hold part of the block that failed: its own header counts.
        let frames = failure == nil ? file.frameCount : (try? AudioFile(forReading: file.url).frameCount) ?? file.frameCount
        var summary = meter.summary(frameCount: frames, byteCount: size)
        summary.nonFiniteSampleCount = nonFiniteSamples
        outcome.withLock { $0 = Outcome(summary: summary, error: failure) }
        finished.signal()
        if let failure { onError?(failure) }
    }

    /// Writes what the tap delivers, gaps as silence, until its input has ended and all is written.
    private func drain(
        chunk: UnsafeMutableBufferPointer<Float>, silence: UnsafeMutableBufferPointer<Float>,
        resampled: UnsafeMutableBufferPointer<Float>, measured: UnsafeMutableBufferPointer<Float>
    ) throws {
        let channels = tap.channelCount
        var position: Int64 = 0
        let blockSeconds = max(Self.minimumBlockSeconds, Double(Self.minimumBlockPeriods * tap.periodFrames) / deviceRate)
        let minimumBlockFrames = min(Int(blockSeconds * deviceRate), Self.chunkFrames)
        // Paced by a device, a block and a period at most: the capture thread delivers a period at a time. Without a
        // clock, a tenth of a second, which the backoff reaches only while nothing comes.
        let longestWait = pacedByDevice ? blockSeconds + 1.25 * Double(tap.periodFrames) / deviceRate : 0.1
        var backoff = PollingBackoff(longest: longestWait, pacedByDevice: pacedByDevice, interruption: finishing)
        var lastSync = ContinuousClock.now
        while true {
            if ContinuousClock.now - lastSync >= Self.syncInterval {
                try file.synchronize()
                lastSync = .now
            }
            // Read first: once the input has ended, everything it delivered is in the rings.
            let ended = inputEnded()
            let gap = tap.gaps.peek()
            if let gap, gap.position <= position {
                _ = tap.gaps.pop()
                var left = gap.frames
                while left > 0 {
                    let frames = min(left, Self.chunkFrames)
                    try emit(UnsafeMutableBufferPointer(rebasing: silence[..<(frames * channels)]), resampled, measured)
                    left -= frames
                }
                position += Int64(gap.frames)
                continue
            }
            let untilGap = gap.map { Int($0.position - position) } ?? .max
            let available = min(audio.availableToRead / channels, untilGap, Self.chunkFrames)
            guard available > 0, available >= minimumBlockFrames || ended || available == untilGap else {
                if ended, available == 0, gap == nil { return }
                if isFinishing.load(ordering: .acquiring) {
                    // The input ends at the capture thread's next turn: looked for every few milliseconds.
                    MonotonicClock.sleep(nanoseconds: 2_000_000)
                } else {
                    // Until a block is there (a gap ends one sooner: it is written when reached), or the next sync is due:
                    // waiting out a block first took it up to half a second late in 250 ms periods.
                    let untilSync = (lastSync + Self.syncInterval - .now) / .seconds(1)
                    backoff.wait(
                        forFrames: min(minimumBlockFrames, untilGap) - available, periodFrames: tap.periodFrames, rate: deviceRate,
                        limit: untilSync)
                }
                continue
            }
            backoff.reset()
            let block = UnsafeMutableBufferPointer(rebasing: chunk[..<(available * channels)])
            audio.read(into: block)
            try emit(block, resampled, measured)
            position += Int64(available)
        }
    }

    /// Sends tap frames through the resampler, when there is one, into the file.
    ///
    /// NaN and ±infinity are counted, and become silence for everything that would be harmed by them (the measures,
    /// libsoxr, webrtc-audio-processing, an encoder: see ``NonFiniteSamples``); a file that holds them gets them as they
    /// came when nothing lies between the device and it, their silence going to the measures through `measured`.
    private func emit(
        _ frames: UnsafeMutableBufferPointer<Float>, _ resampled: UnsafeMutableBufferPointer<Float>,
        _ measured: UnsafeMutableBufferPointer<Float>
    ) throws {
        let nonFinite = NonFiniteSamples.count(in: UnsafeBufferPointer(frames))
        if nonFinite > 0 {
            nonFiniteSamples += Int64(nonFinite)
            if resampler == nil, enhancer == nil, file.holdsNonFiniteSamples {
                let finite = UnsafeMutableBufferPointer(rebasing: measured[..<frames.count])
                _ = finite.update(fromContentsOf: frames)
                NonFiniteSamples.zero(in: finite)
                meter.add(UnsafeBufferPointer(finite))
                return try file.write(UnsafeBufferPointer(frames))
            }
            NonFiniteSamples.zero(in: frames)
        }
        guard let resampler else { return try write(UnsafeBufferPointer(frames)) }
        try resampler.processAll(UnsafeBufferPointer(frames), through: resampled) { try write($0) }
    }

    private func write(_ frames: UnsafeBufferPointer<Float>) throws {
        guard let enhancer else { return try store(frames) }
        try enhancer.process(frames) { try store($0) }
    }

    /// Measures `frames`, as they are to be in the file, and writes them.
    private func store(_ frames: UnsafeBufferPointer<Float>) throws {
        meter.add(frames)
        try file.write(frames)
    }
}
