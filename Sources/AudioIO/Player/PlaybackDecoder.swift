import Atomics
import Foundation

/// The decoder thread of one voice: reads the file, maps its channels to the device's, resamples to the
/// device rate (libsoxr), stretches time when the player's rate is enabled (SoundTouch), and fills the
/// voice's ring ahead of the render thread, looping gaplessly and ending with an end marker.
///
/// The resampler and the stretcher run across loop seams without a reset, so a loop is as continuous as
/// the file itself; with neither in the path (file at the device rate, rate not enabled) the samples reach
/// the ring unchanged.
final class PlaybackDecoder: @unchecked Sendable {
    /// Source frames read per step.
    static let chunkFrames = 1024

    /// Passes over the file beyond the first: 0 plays once, n plays n + 1 times, negative loops until stopped.
    let numberOfLoops: ManagedAtomic<Int>
    /// The playback rate's bit pattern (`Float`), read once per step.
    let rateBits: ManagedAtomic<UInt32>
    /// Called on the decoder thread when reading fails; the voice then ends where the audio stops.
    var onError: (@Sendable (AudioFileError) -> Void)?

    private let file: AudioFile
    private let voice: Voice
    private let deviceRate: Double
    private let channelMap: ChannelMap
    private let resampler: Resampler?
    private let stretcher: TimeStretcher?
    private let stopRequested = ManagedAtomic<Bool>(false)
    private var outputTime: Double
    private var completedPasses = 0

    /// Prepares to decode `file` from `startTime` seconds into `voice`.
    ///
    /// - Throws: ``AudioFileError`` when the file's channels cannot be mapped to the device's, or it cannot
    ///   seek; `ResamplerError` when libsoxr refuses the rates.
    init(
        file: AudioFile, voice: Voice, deviceRate: Double, startTime: Double, numberOfLoops: Int,
        rate: Float, enableRate: Bool
    ) throws {
        guard let map = ChannelMap(from: file.channelCount, to: voice.channelCount) else {
            throw AudioFileError(path: file.url.path, reason: .unsupported(
                "its \(file.channelCount) channels cannot be played on a \(voice.channelCount)-channel device"))
        }
        self.file = file
        self.voice = voice
        self.deviceRate = deviceRate
        channelMap = map
        resampler = file.sampleRate == deviceRate ? nil : try Resampler(
            inputRate: file.sampleRate, outputRate: deviceRate, channelCount: voice.channelCount)
        stretcher = enableRate ? TimeStretcher(sampleRate: Int(deviceRate), channelCount: voice.channelCount) : nil
        self.numberOfLoops = ManagedAtomic(numberOfLoops)
        rateBits = ManagedAtomic(rate.bitPattern)
        outputTime = startTime
        try file.seek(toFrame: min(file.frameCount, Int64((startTime * file.sampleRate).rounded())))
    }

    /// Starts the decoder thread.
    func start() {
        Thread.detachNewThread { [self] in run() }
    }

    /// Asks the thread to stop; it exits within a step and touches the voice no more.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
    }

    private func run() {
        let buffers = Buffers(
            sourceSamples: Self.chunkFrames * file.channelCount, channels: voice.channelCount,
            outputFrames: Self.chunkFrames * max(4, Int((deviceRate / file.sampleRate).rounded(.up)) + 2))
        defer { buffers.deallocate() }
        while !stopRequested.load(ordering: .acquiring) {
            // Keep room for a whole step so that one step never waits half-way.
            guard voice.audio.availableToWrite >= buffers.output.count * 2, voice.markers.availableToWrite > 8 else {
                usleep(500)
                continue
            }
            do {
                let frames = try file.read(into: buffers.source)
                if frames > 0 {
                    let input = UnsafeBufferPointer(rebasing: buffers.source[..<(frames * file.channelCount)])
                    let mapped = UnsafeMutableBufferPointer(rebasing: buffers.mapped[..<(frames * voice.channelCount)])
                    channelMap.apply(input, into: mapped)
                    try resampleAndPush(UnsafeBufferPointer(mapped), buffers)
                    continue
                }
                completedPasses += 1
                let loops = numberOfLoops.load(ordering: .relaxed)
                if loops < 0 || completedPasses <= loops {
                    try file.seek(toFrame: 0)
                    continue
                }
                try finish(buffers)
            } catch let error as AudioFileError {
                onError?(error)
            } catch {
                onError?(AudioFileError(path: file.url.path, reason: .readFailed("\(error)")))
            }
            pushEnd()
            return
        }
    }

    /// Preallocated working memory of one decoder thread.
    private struct Buffers {
        let source: UnsafeMutableBufferPointer<Float>
        let mapped: UnsafeMutableBufferPointer<Float>
        let resampled: UnsafeMutableBufferPointer<Float>
        let output: UnsafeMutableBufferPointer<Float>

        init(sourceSamples: Int, channels: Int, outputFrames: Int) {
            source = .allocate(capacity: sourceSamples)
            mapped = .allocate(capacity: PlaybackDecoder.chunkFrames * channels)
            resampled = .allocate(capacity: outputFrames * channels)
            output = .allocate(capacity: outputFrames * channels)
        }

        func deallocate() {
            for buffer in [source, mapped, resampled, output] { buffer.deallocate() }
        }
    }

    /// Sends device-channel frames through the resampler (when the rates differ), then on.
    private func resampleAndPush(_ frames: UnsafeBufferPointer<Float>, _ buffers: Buffers) throws {
        guard let resampler else { return stretchAndPush(frames, buffers) }
        var input = frames
        while !input.isEmpty {
            let (consumed, produced) = try resampler.process(input, into: buffers.resampled)
            stretchAndPush(UnsafeBufferPointer(rebasing: buffers.resampled[..<(produced * voice.channelCount)]), buffers)
            if consumed == 0, produced == 0 { throw ResamplerError(description: "libsoxr made no progress") }
            input = UnsafeBufferPointer(rebasing: input[(consumed * voice.channelCount)...])
        }
    }

    /// Sends device-rate frames through the stretcher (when the rate is enabled) into the ring.
    private func stretchAndPush(_ frames: UnsafeBufferPointer<Float>, _ buffers: Buffers) {
        guard let stretcher else { return push(frames, rate: 1) }
        let rate = Float(bitPattern: rateBits.load(ordering: .relaxed))
        if stretcher.tempo != rate { stretcher.tempo = rate }
        stretcher.put(frames)
        drain(stretcher, buffers, rate: rate)
    }

    private func drain(_ stretcher: TimeStretcher, _ buffers: Buffers, rate: Float) {
        while case let produced = stretcher.receive(into: buffers.output), produced > 0 {
            push(UnsafeBufferPointer(rebasing: buffers.output[..<(produced * voice.channelCount)]), rate: rate)
        }
    }

    /// After the last pass: pushes out what the resampler and the stretcher still hold.
    private func finish(_ buffers: Buffers) throws {
        if let resampler {
            while case let produced = try resampler.flush(into: buffers.resampled), produced > 0 {
                stretchAndPush(UnsafeBufferPointer(rebasing: buffers.resampled[..<(produced * voice.channelCount)]), buffers)
            }
        }
        if let stretcher {
            stretcher.flush()
            drain(stretcher, buffers, rate: stretcher.tempo)
        }
    }

    /// Appends device-rate frames with a marker saying where in the file they come from.
    private func push(_ frames: UnsafeBufferPointer<Float>, rate: Float) {
        let count = frames.count / voice.channelCount
        guard count > 0 else { return }
        var written = 0
        while written < frames.count, !stopRequested.load(ordering: .relaxed) {
            written += voice.audio.write(UnsafeBufferPointer(rebasing: frames[written...]))
            if written < frames.count { usleep(500) }
        }
        let secondsPerFrame = Double(rate) / deviceRate
        voice.markers.push(PlaybackMarker(frames: count, fileTime: outputTime, secondsPerFrame: secondsPerFrame, isEnd: false))
        if voice.audio.capacity - voice.audio.availableToWrite >= voice.audio.capacity / 2 {
            voice.isPrimed.store(true, ordering: .releasing)
        }
        outputTime += Double(count) * secondsPerFrame
        if outputTime >= file.duration { outputTime -= file.duration }
    }

    private func pushEnd() {
        while !voice.markers.push(PlaybackMarker(frames: 0, fileTime: file.duration, secondsPerFrame: 0, isEnd: true)) {
            if stopRequested.load(ordering: .relaxed) { return }
            usleep(500)
        }
        voice.isPrimed.store(true, ordering: .releasing)
    }
}
