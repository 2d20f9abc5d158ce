import Atomics
import FoundationEssentials
import SystemEdge

/// What a decoder plays after the end of a file (or of its range).
enum NextSource {
    /// The same file again, from its range's start (a loop).
    case rewind
    /// Another file, which becomes item `item` of the voice (a queue), played at `gain` dB, its `range`.
    case file(AudioFile, item: Int, gain: Float, range: PlaybackRange)
    /// Nothing: the voice ends.
    case end
}

/// The part of a file a decoder plays: a player's ``AudioPlayer/forwardPlaybackStartTime`` and
/// ``AudioPlayer/forwardPlaybackEndTime``.
struct PlaybackRange: Equatable {
    /// Seconds into the file where it starts, where a loop starts again.
    var start: TimeInterval = 0
    /// Seconds into the file where it ends; nil: at the file's end.
    var end: TimeInterval?

    /// The frame of `file` where the range starts.
    func startFrame(of file: AudioFile) -> Int64 {
        min(file.frameCount, Int64(frames: start, rate: file.sampleRate))
    }

    /// The frame of `file` where the range ends, never before its start.
    func endFrame(of file: AudioFile) -> Int64 {
        max(startFrame(of: file), end.map { min(file.frameCount, Int64(frames: $0, rate: file.sampleRate)) } ?? file.frameCount)
    }
}

/// The decoder thread of one voice: reads the file (its range), applies its item's gain, maps its channels to the
/// device's, resamples to the device rate (libsoxr), changes speed when the player's rate is enabled (``RateStage``:
/// SoundTouch, or libsoxr's variable rate for varispeed), shortens pauses while silence is skipped (``SilenceSkipper``,
/// on what is to be heard, so that its durations are as heard), and fills the voice's ring ahead of the render thread.
/// Its markers keep the file's time: after a shortened pause, the next stretch starts that much later in the file. At
/// the end of a file's range it asks what follows — the range again (a loop), another file (a queue, played whole) or
/// nothing — and goes on without a gap, ending with an end marker.
///
/// The resampler runs across seams between files of one rate, and the rate stage across all, so a loop or a
/// queue is as continuous as one file; with neither in the path (file at the device rate, rate not enabled)
/// and the item at 0 dB, the samples reach the ring unchanged.
package final class PlaybackDecoder: @unchecked Sendable {
    /// Source frames read per step.
    package static let chunkFrames = 1024
    /// Device frames produced per resampling call at most; more input waits for the next call.
    static let outputFrames = 8 * chunkFrames

    /// The playback rate's bit pattern (`Float`), read once per step.
    let rateBits: ManagedAtomic<UInt32>
    /// Whether pauses are shortened, read once per stretch of frames handed on.
    let skipsSilence: ManagedAtomic<Bool>
    /// Called on the decoder thread when reading fails; the voice then ends where the audio stops.
    var onError: (@Sendable (AudioFileError) -> Void)?
    /// Called on the decoder thread with what a live stream's station said, as it is read: the voice's item, and the
    /// metadata with its time in the item.
    var onTimedMetadata: (@Sendable (_ item: Int, TimedMetadata) -> Void)?

    /// The file being read and what turns it into device frames.
    private struct Source {
        let file: AudioFile
        /// The voice's item this source plays: a queue's item, or a loop's pass (a rewind starts the next).
        var item: Int
        /// What the item's samples are multiplied by (its gain, linear), unless ``PlaybackDecoder/itemGain`` has a newer one.
        let amplitude: Float
        let channelMap: ChannelMap
        let resampler: Resampler?
        let range: PlaybackRange
    }

    /// The last gain set while playing (``setGain(_:forItem:)``): the item's number in the high half, its linear gain's
    /// bits in the low one, so that the two change together. Read once per step.
    private let itemGain: ManagedAtomic<UInt64>

    private var source: Source
    private let voice: Voice
    private let deviceRate: Double
    private let rateStage: RateStage?
    /// The levels of the file's channels, for the player's meters.
    private var fileLevels = FileLevelRecords(channelCount: 1)
    private let next: @Sendable (_ completedPasses: Int) -> NextSource
    private let stopRequested = ManagedAtomic<Bool>(false)
    private var outputTime: Double
    private var completedPasses = 0
    /// Whether frames go through the rate stage: from the first rate other than 1 on. Until then they pass it
    /// by, untouched and at no cost; after, they stay in it, since leaving it would cut what it holds.
    private var isChangingSpeed = false
    private let silenceSkipping: SilenceSkipping
    /// Made the first time silence is skipped.
    private var skipper: SilenceSkipper?
    /// Whether frames go through the skipper now.
    private var isSkippingSilence = false
    /// Seconds of the files left out as silence so far, carried by the markers.
    private var skippedTime = 0.0

    /// Prepares to decode `file`'s `range`, item `item` of `voice` played at `gain` dB, from `startTime` seconds into
    /// `voice`, changing speed by `pitchAlgorithm` when `enableRate`; `next` says what follows each file, given how many
    /// passes have completed.
    ///
    /// - Throws: ``AudioFileError`` when the file's channels cannot be mapped to the device's, or it cannot
    ///   seek; `ResamplerError` when libsoxr refuses the rates.
    init(
        file: AudioFile, item: Int = 0, gain: Float = 0, range: PlaybackRange = PlaybackRange(), voice: Voice,
        deviceRate: Double, startTime: Double, rate: Float, enableRate: Bool, pitchAlgorithm: AudioTimePitchAlgorithm = .timeDomain,
        skipsSilence: Bool = false, silenceSkipping: SilenceSkipping = SilenceSkipping(),
        next: @escaping @Sendable (_ completedPasses: Int) -> NextSource
    ) throws {
        self.voice = voice
        self.deviceRate = deviceRate
        self.next = next
        source = try Self.source(
            file, item: item, gain: gain, range: range, channels: voice.channelCount, deviceRate: deviceRate, continuing: nil)
        itemGain = ManagedAtomic(Self.packed(item: item, amplitude: source.amplitude))
        rateStage = enableRate ? try RateStage(pitchAlgorithm, sampleRate: Int(deviceRate), channelCount: voice.channelCount) : nil
        rateBits = ManagedAtomic(rate.bitPattern)
        self.skipsSilence = ManagedAtomic(skipsSilence)
        self.silenceSkipping = silenceSkipping
        outputTime = startTime
        let frame = min(file.frameCount, Int64(frames: startTime, rate: file.sampleRate))
        // A live playlist's time 0 has passed long ago: playing from 0 is playing from where it opened, its live edge.
        if file.liveTimeline != nil, startTime == 0 {
            pendingSeek = nil
        } else if file.remote != nil {
            // An address's seek may wait for a range to download: on the decoder thread, not the caller's.
            pendingSeek = frame
        } else {
            try file.seek(toFrame: frame)
        }
    }

    /// Where an address's file is to be sought to before the first read (see
    /// ``init(file:item:gain:range:voice:deviceRate:startTime:rate:enableRate:pitchAlgorithm:skipsSilence:silenceSkipping:next:)``).
    private var pendingSeek: Int64?

    /// The pipeline for `file`'s `range` at `gain` dB, keeping `previous`'s resampler when the rate is the same.
    private static func source(
        _ file: AudioFile, item: Int, gain: Float, range: PlaybackRange = PlaybackRange(), channels: Int, deviceRate: Double,
        continuing previous: Source?
    ) throws -> Source {
        guard let map = ChannelMap(from: file.channelCount, to: channels) else {
            throw AudioFileError(path: file.url.path, reason: .unsupported(
                "its \(file.channelCount) channels cannot be played on a \(channels)-channel device"))
        }
        let resampler: Resampler?
        if file.sampleRate == deviceRate {
            resampler = nil
        } else if let previous, previous.file.sampleRate == file.sampleRate {
            resampler = previous.resampler
        } else {
            resampler = try Resampler(inputRate: file.sampleRate, outputRate: deviceRate, channelCount: channels)
        }
        let amplitude = Float(AudioLevels.amplitude(Double(gain)))
        return Source(file: file, item: item, amplitude: amplitude, channelMap: map, resampler: resampler, range: range)
    }

    /// Plays item `item` at `gain` dB from the next step, if it is the one being read then; else the gain it was
    /// opened with (or the next file's) stays.
    func setGain(_ gain: Float, forItem item: Int) {
        itemGain.store(Self.packed(item: item, amplitude: Float(AudioLevels.amplitude(Double(gain)))), ordering: .relaxed)
    }

    private static func packed(item: Int, amplitude: Float) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: item)) << 32 | UInt64(amplitude.bitPattern)
    }

    /// The gain of the item being read: the last one set while playing, if it is for this item.
    private var amplitude: Float {
        let packed = itemGain.load(ordering: .relaxed)
        guard UInt32(truncatingIfNeeded: packed >> 32) == UInt32(truncatingIfNeeded: source.item) else { return source.amplitude }
        return Float(bitPattern: UInt32(truncatingIfNeeded: packed))
    }

    /// Seconds the thread sleeps at most while the ring is full: a quarter of what the ring holds, which it refills
    /// from half empty.
    private var longestWait: Double {
        Double(voice.audio.capacity / voice.channelCount) / deviceRate / 4
    }

    /// Whether the render thread drains the ring at the pace of a device's clock: set by ``start(pacedByDevice:)``.
    private var pacedByDevice = false

    /// Starts the decoder thread; `pacedByDevice` when the voice plays on a device with a clock.
    func start(pacedByDevice: Bool) {
        self.pacedByDevice = pacedByDevice
        SystemThread.detach(name: "audio-decoder", realtime: false) { [self] in run() }
    }

    /// Asks the thread to stop; it exits within a step and touches the voice no more.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
    }

    private func run() {
        let buffers = Buffers(channels: voice.channelCount)
        defer { buffers.deallocate() }
        var backoff = PollingBackoff(longest: longestWait, pacedByDevice: pacedByDevice)
        var isRefilling = true
        if let frame = pendingSeek {
            do {
                try source.file.seek(toFrame: frame)
            } catch {
                return fail(error)
            }
        }
        // A live playlist's seek lands where its window lets it.
        if source.file.liveTimeline != nil { outputTime = Double(source.file.framePosition) / source.file.sampleRate }
        while !stopRequested.load(ordering: .acquiring) {
            // Keep room for a whole step (rate expansion, and a quarter speed making it four times as long) so that a step rarely
            // waits half-way; the ring holds several.
            let expansion = Int((deviceRate / source.file.sampleRate).rounded(.up)) * (rateStage == nil ? 1 : 4)
            let room = min((Self.chunkFrames * expansion + 256) * voice.channelCount, voice.audio.capacity / 2)
            // The ring is filled in bursts, from half empty to full: a device with a clock then wakes the decoder
            // a few times a second, not once or more a step.
            if voice.audio.availableToWrite >= voice.audio.capacity / 2 { isRefilling = true }
            guard isRefilling, voice.audio.availableToWrite >= room,
                  voice.markers.availableToWrite > 16
            else {
                isRefilling = false
                backoff.wait()
                continue
            }
            backoff.reset()
            do {
                let file = source.file
                let wanted = Int(min(Int64(Self.chunkFrames), max(0, source.range.endFrame(of: file) - file.framePosition)))
                let before = file.framePosition
                let frames = wanted == 0 ? 0 : try file.read(into: UnsafeMutableBufferPointer(rebasing: buffers.source[..<(wanted * file.channelCount)]))
                // A live playlist's segments that left its window unread are skipped: its time jumps on with them.
                if file.framePosition != before + Int64(frames) {
                    outputTime += Double(file.framePosition - before - Int64(frames)) / file.sampleRate
                }
                if file.isLive, let onTimedMetadata {
                    for (_, metadata) in file.takeTimedMetadata() { onTimedMetadata(source.item, metadata) }
                }
                if frames > 0 {
                    let read = UnsafeMutableBufferPointer(rebasing: buffers.source[..<(frames * file.channelCount)])
                    // Before the meter, which then shows what is heard, as a player's shows its gain; per file, so a
                    // seam between items at different gains switches on the first frame of the next.
                    let amplitude = self.amplitude
                    if amplitude != 1 {
                        for index in read.indices { read[index] *= amplitude }
                    }
                    let input = UnsafeBufferPointer(read)
                    if voice.isMeteringEnabled.load(ordering: .relaxed) { meter(input) }
                    let mapped = UnsafeMutableBufferPointer(rebasing: buffers.mapped[..<(frames * voice.channelCount)])
                    source.channelMap.apply(input, into: mapped)
                    try resampleAndPush(UnsafeBufferPointer(mapped), buffers)
                    continue
                }
                completedPasses += 1
                // All of this file is in the ring: whoever waits for priming may go on (and may hold a lock
                // that `next` needs).
                voice.isPrimed.store(true, ordering: .releasing)
                // A range of nothing loops to nothing: it ends rather than spin.
                let isEmpty = source.range.startFrame(of: file) == source.range.endFrame(of: file)
                switch isEmpty ? .end : next(completedPasses) {
                case .rewind:
                    try file.seek(toFrame: source.range.startFrame(of: file))
                    // The next pass is an item of its own: a player that makes a new voice (a seek) knows from
                    // the voice's current item how many passes were heard.
                    source.item += 1
                    continue
                case .file(let nextFile, let item, let gain, let range):
                    let following = try Self.source(
                        nextFile, item: item, gain: gain, range: range, channels: voice.channelCount, deviceRate: deviceRate,
                        continuing: source)
                    if following.resampler !== source.resampler { try flushResampler(buffers) }
                    // A pause at the end of an item ends there.
                    endSkippedPause(rate: Float(bitPattern: rateBits.load(ordering: .relaxed)))
                    source = following
                    // An item played from a time in it (a looper's range) starts there, and its time with it.
                    let start = range.startFrame(of: nextFile)
                    if start > 0 { try nextFile.seek(toFrame: start) }
                    outputTime = Double(start) / nextFile.sampleRate
                    continue
                case .end:
                    try finish(buffers)
                }
            } catch {
                return fail(error)
            }
            pushEnd()
            return
        }
    }

    /// Ends the voice where the audio stops, on a failure to read or seek.
    private func fail(_ error: any Error) {
        // The end marker first (flagged): a player waiting for the ring to prime must not wait for the report.
        voice.decodeFailed.store(true, ordering: .releasing)
        pushEnd()
        onError?(error as? AudioFileError ?? AudioFileError(path: source.file.url.path, reason: .readFailed("\(error)")))
    }

    /// Preallocated working memory of one decoder thread.
    private struct Buffers {
        let source: UnsafeMutableBufferPointer<Float>
        let mapped: UnsafeMutableBufferPointer<Float>
        let resampled: UnsafeMutableBufferPointer<Float>
        let output: UnsafeMutableBufferPointer<Float>

        init(channels: Int) {
            source = .allocate(capacity: PlaybackDecoder.chunkFrames * AudioFile.maximumChannelCount)
            mapped = .allocate(capacity: PlaybackDecoder.chunkFrames * channels)
            resampled = .allocate(capacity: PlaybackDecoder.outputFrames * channels)
            output = .allocate(capacity: PlaybackDecoder.outputFrames * channels)
        }

        func deallocate() {
            for buffer in [source, mapped, resampled, output] { buffer.deallocate() }
        }
    }

    /// Measures `frames` just read from the file, tagged with where they end in it.
    private func meter(_ frames: UnsafeBufferPointer<Float>) {
        let file = source.file
        fileLevels.add(
            frames, channelCount: file.channelCount, item: source.item,
            endTime: Double(file.framePosition) / file.sampleRate, to: voice.fileLevels)
    }

    /// Sends device-channel frames through the resampler (when the rates differ), then on.
    private func resampleAndPush(_ frames: UnsafeBufferPointer<Float>, _ buffers: Buffers) throws {
        guard let resampler = source.resampler else { return try changeSpeedAndPush(frames, buffers) }
        var input = frames
        while !input.isEmpty {
            let (consumed, produced) = try resampler.process(input, into: buffers.resampled)
            try changeSpeedAndPush(UnsafeBufferPointer(rebasing: buffers.resampled[..<(produced * voice.channelCount)]), buffers)
            if consumed == 0, produced == 0 { throw ResamplerError(description: "libsoxr made no progress") }
            input = UnsafeBufferPointer(rebasing: input[(consumed * voice.channelCount)...])
        }
    }

    /// Sends device-rate frames through the rate stage (when the rate is enabled) on.
    private func changeSpeedAndPush(_ frames: UnsafeBufferPointer<Float>, _ buffers: Buffers) throws {
        guard let rateStage else { return skipAndPush(frames, rate: 1) }
        let rate = Float(bitPattern: rateBits.load(ordering: .relaxed))
        isChangingSpeed = isChangingSpeed || rate != 1
        guard isChangingSpeed else { return skipAndPush(frames, rate: 1) }
        rateStage.speed = rate
        try rateStage.process(frames, through: buffers.output) { skipAndPush($0, rate: rate) }
    }

    /// Sends frames to be heard through the silence skipper (while silence is skipped) into the ring, noting the
    /// time of the pauses shortened.
    private func skipAndPush(_ frames: UnsafeBufferPointer<Float>, rate: Float) {
        let wanted = skipsSilence.load(ordering: .relaxed)
        if wanted, skipper == nil {
            skipper = SilenceSkipper(
                channelCount: voice.channelCount, sampleRate: deviceRate, settings: silenceSkipping, maximumInput: Self.outputFrames)
        }
        if !wanted, isSkippingSilence { endSkippedPause(rate: rate) }
        isSkippingSilence = wanted
        guard wanted, let skipper else { return push(frames, rate: rate) }
        var input = frames
        repeat {
            let step = skipper.process(input)
            push(UnsafeBufferPointer(rebasing: skipper.output[..<(step.produced * voice.channelCount)]), rate: rate)
            if step.skipped > 0 { noteSkipped(step.skipped, rate: rate) }
            input = UnsafeBufferPointer(rebasing: input[(step.consumed * voice.channelCount)...])
        } while !input.isEmpty
    }

    /// Ends a pause being shortened (the stream ends, or skipping is turned off) and pushes out what the skipper
    /// holds.
    private func endSkippedPause(rate: Float) {
        guard isSkippingSilence, let skipper else { return }
        let skipped = skipper.end()
        if skipped > 0 { noteSkipped(skipped, rate: rate) }
        let step = skipper.process(UnsafeBufferPointer(start: nil, count: 0))
        push(UnsafeBufferPointer(rebasing: skipper.output[..<(step.produced * voice.channelCount)]), rate: rate)
    }

    /// `frames` device frames at `rate` were left out: the frames after them come that much later in the file.
    private func noteSkipped(_ frames: Int, rate: Float) {
        let seconds = Double(frames) * Double(rate) / deviceRate
        skippedTime += seconds
        advance(by: seconds)
    }

    /// Pushes out what the resampler of the current file still holds.
    private func flushResampler(_ buffers: Buffers) throws {
        guard let resampler = source.resampler else { return }
        while case let produced = try resampler.flush(into: buffers.resampled), produced > 0 {
            try changeSpeedAndPush(UnsafeBufferPointer(rebasing: buffers.resampled[..<(produced * voice.channelCount)]), buffers)
        }
    }

    /// After the last pass: pushes out what the resampler and the rate stage still hold.
    private func finish(_ buffers: Buffers) throws {
        try flushResampler(buffers)
        if let rateStage, isChangingSpeed {
            let rate = rateStage.speed
            try rateStage.finish(through: buffers.output) { skipAndPush($0, rate: rate) }
        }
        endSkippedPause(rate: rateStage?.speed ?? 1)
    }

    /// Appends device-rate frames with a marker saying where in the file they come from.
    private func push(_ frames: UnsafeBufferPointer<Float>, rate: Float) {
        let count = frames.count / voice.channelCount
        guard count > 0 else { return }
        var written = 0
        var backoff = PollingBackoff(longest: longestWait, pacedByDevice: pacedByDevice)
        while written < frames.count, !stopRequested.load(ordering: .relaxed) {
            written += voice.audio.write(UnsafeBufferPointer(rebasing: frames[written...]))
            if written < frames.count { backoff.wait() }
        }
        let secondsPerFrame = Double(rate) / deviceRate
        voice.markers.push(PlaybackMarker(
            frames: count, fileTime: outputTime, secondsPerFrame: secondsPerFrame, item: source.item, isEnd: false,
            skipped: skippedTime))
        if voice.audio.capacity - voice.audio.availableToWrite >= voice.audio.capacity / 4 {
            voice.isPrimed.store(true, ordering: .releasing)
        }
        advance(by: Double(count) * secondsPerFrame, secondsPerFrame: secondsPerFrame)
    }

    /// Moves the file time of the next frames on by `seconds`, round to the start of the range's next pass once past
    /// its end (by more than half a frame: the sums' rounding): frames of the next pass, held by the resampler or the
    /// rate stage across the seam, or a pause skipped across it.
    private func advance(by seconds: Double, secondsPerFrame: Double = 0) {
        outputTime += seconds
        let range = source.range
        let end = range.end.map { min($0, source.file.duration) } ?? source.file.duration
        while outputTime + secondsPerFrame / 2 >= end, end > range.start { outputTime -= end - range.start }
    }

    private func pushEnd() {
        let end = PlaybackMarker(frames: 0, fileTime: 0, secondsPerFrame: 0, item: source.item, isEnd: true)
        var backoff = PollingBackoff(longest: longestWait, pacedByDevice: pacedByDevice)
        while !voice.markers.push(end) {
            if stopRequested.load(ordering: .relaxed) { return }
            backoff.wait()
        }
        voice.isPrimed.store(true, ordering: .releasing)
    }
}
