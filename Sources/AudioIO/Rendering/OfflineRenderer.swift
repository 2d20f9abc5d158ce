import Atomics
import FoundationEssentials
import SystemPackage

/// Renders players faster than real time, into memory or into a file, with the samples a device would get: the
/// counterpart of `AVAudioEngine`'s manual rendering mode.
///
/// ```swift
/// let renderer = try OfflineRenderer(sampleRate: 48_000, channelCount: 2)
/// let player = try AudioPlayer(contentsOf: lecture)
/// player.currentDevice = renderer.device
/// player.enableRate = true
/// player.rate = 1.5                  // faster, pitch kept
/// player.play()
/// try renderer.render(to: output, settings: AudioSettings(format: .opus, sampleRate: 48_000, channelCount: 2))
/// ```
///
/// Players and queue players play into it as into a device named ``device``, through the same mixer as on a device:
/// volume, fades, pan, rate, loops and ``AudioPlayer/play(atTime:)`` all apply. Its clock is the audio rendered
/// (``BasePlayer/currentTime``) and stands still between renders, so players started or scheduled between two renders start on
/// the frames asked for. A decoder that falls behind is waited for: every frame is exact, however fast the render.
/// Interruptions and route changes of ``AudioSession`` leave its players alone.
///
/// **Thread safety**: render from one thread at a time; players may be steered from any thread.
public final class OfflineRenderer: @unchecked Sendable {
    /// The device name that players take as ``BasePlayer/currentDevice`` to play into this renderer.
    public let device: String
    /// Frames per second rendered, in hertz.
    public let sampleRate: Double
    /// Channels rendered: 1 or 2.
    public let channelCount: Int

    private let engine: StreamEngine
    private let period: RenderedPeriod

    /// Frames rendered per step.
    static let periodFrames = 4096
    private static let count = ManagedAtomic<Int>(0)

    /// Creates a renderer of `sampleRate` hertz and `channelCount` channels.
    ///
    /// - Parameters:
    ///   - sampleRate: 8000 … 384000 Hz.
    ///   - channelCount: 1 (mono) or 2 (stereo).
    /// - Throws: ``AudioSettingsError`` for a rate or channel count outside those ranges.
    public init(sampleRate: Double = 48000, channelCount: Int = 2) throws(AudioSettingsError) {
        guard AudioSettings.sampleRates.contains(sampleRate), sampleRate.rounded() == sampleRate else { throw .sampleRate(sampleRate) }
        guard (1...2).contains(channelCount) else { throw .channelCount(channelCount, allowed: 1...2, format: .wav) }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        device = "offline-renderer-\(Self.count.wrappingIncrementThenLoad(ordering: .relaxed))"
        let period = RenderedPeriod(capacity: Self.periodFrames * channelCount)
        self.period = period
        let request = StreamRequest(
            sampleRate: Int(sampleRate), channelCount: channelCount, formats: [.float32], periodFrames: Self.periodFrames, periods: 1)
        do {
            engine = try StreamEngine.offline(named: device, request: request) { period.copy($0) }
        } catch {
            // A null stream takes any rate and channel count in floats.
            preconditionFailure("a null stream refused \(request): \(error)")
        }
    }

    deinit { engine.close() }

    /// Seconds rendered so far: the time on ``AudioPlayer/deviceCurrentTime``'s clock for players on this renderer.
    public var currentTime: TimeInterval { Double(engine.framesRendered) / sampleRate }

    /// Whether a player on it plays or waits for its scheduled start: what ``render(to:settings:metadata:maximumDuration:replacingExisting:)``
    /// renders until.
    public var isPlaying: Bool { engine.hasVoicesToRender }

    /// Renders the next `frameCount` frames, whatever plays or not, and returns them interleaved
    /// (`frameCount × channelCount` samples, −1…1 at full scale, not clipped).
    public func render(frameCount: Int) -> [Float] {
        var samples = [Float]()
        samples.reserveCapacity(max(0, frameCount) * channelCount)
        var left = frameCount
        while left > 0 {
            let frames = min(left, Self.periodFrames)
            engine.renderOffline(frames: frames)
            samples.append(contentsOf: period.samples)
            left -= frames
        }
        return samples
    }

    /// Renders until no player on it plays or waits to start, or `maximumDuration` seconds, into a new file at `url`.
    ///
    /// The file starts at ``BasePlayer/currentTime`` and ends with the last frame a player mixed: the silence of a pause that
    /// follows is not written. It appears whole or not at all, as ``AudioFileConverter`` writes.
    ///
    /// - Parameters:
    ///   - url: The file to create.
    ///   - settings: Its format; the sample rate and channel count must be the renderer's.
    ///   - metadata: Tags and markers (in frames of the rendered file) to store in it.
    ///   - maximumDuration: The most seconds to render: a player that loops forever stops there.
    ///   - replacingExisting: Whether a file already at `url` is replaced; when false, the render fails with
    ///     ``AudioFileError/Reason/exists``.
    /// - Returns: What was written.
    /// - Throws: ``AudioSettingsError`` for settings that cannot be written, ``AudioFileError`` when the file cannot
    ///   be, or nothing played (``AudioFileError/Reason/noAudio``).
    @discardableResult
    public func render(
        to url: URL, settings: AudioSettings, metadata: AudioMetadata = AudioMetadata(),
        maximumDuration: TimeInterval = .infinity, replacingExisting: Bool = true
    ) throws -> AudioFileSummary {
        guard settings.sampleRate == sampleRate, settings.channelCount == channelCount else {
            throw AudioFileError(path: url.path, reason: .unsupported(
                "the renderer renders \(Int(sampleRate)) Hz in \(channelCount) channels; ask for the same in the file's settings"))
        }
        try AudioFileConverter.refuseExisting(url, unless: replacingExisting)
        let staged = try stage(beside: url, settings: settings, metadata: metadata, maximumDuration: maximumDuration)
        return try staged.place(at: url, replacingExisting: replacingExisting)
    }

    /// Renders as ``render(to:settings:metadata:maximumDuration:replacingExisting:)`` does, into a hidden file beside
    /// `url` that is removed when released unplaced.
    package func stage(
        beside url: URL, settings: AudioSettings, metadata: AudioMetadata = AudioMetadata(),
        maximumDuration: TimeInterval = .infinity, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws -> StagedAudioFile {
        guard settings.sampleRate == sampleRate, settings.channelCount == channelCount else {
            throw AudioFileError(path: url.path, reason: .unsupported(
                "the renderer renders \(Int(sampleRate)) Hz in \(channelCount) channels; ask for the same in the file's settings"))
        }
        let maximumFrames = maximumDuration >= Double(Int64.max) / sampleRate ? Int64.max : Int64(frames: maximumDuration, rate: sampleRate)
        return try AudioFileConverter.stage(
            beside: url, settings: settings, metadata: metadata, permissions: permissions, expectedFrameCount: nil
        ) { output, meter in
            let frames = try renderWhilePlaying(maximumFrames: maximumFrames) { block in
                meter.add(block)
                try output.write(block)
            }
            guard frames > 0 else { throw AudioFileError(path: url.path, reason: .noAudio) }
        }
    }

    /// Renders while a player plays or waits to start, up to `maximumFrames` frames, handing `emit` every frame up
    /// to the last one a player mixed; returns how many that was.
    func renderWhilePlaying(maximumFrames: Int64, _ emit: (UnsafeBufferPointer<Float>) throws -> Void) rethrows -> Int64 {
        let start = engine.framesRendered
        var emittedUpTo = start
        let silence = [Float](repeating: 0, count: Self.periodFrames * channelCount)
        while engine.hasVoicesToRender, engine.framesRendered - start < maximumFrames {
            let first = engine.framesRendered
            engine.renderOffline(frames: Int(min(Int64(Self.periodFrames), maximumFrames - (first - start))))
            let end = engine.endOfMixedFrames
            guard end > emittedUpTo else { continue }
            // What no player mixed before this period was silence, held back until it was known to lead somewhere.
            while emittedUpTo < first {
                let frames = Int(min(Int64(Self.periodFrames), first - emittedUpTo))
                try silence.withUnsafeBufferPointer { try emit(UnsafeBufferPointer(rebasing: $0[..<(frames * channelCount)])) }
                emittedUpTo += Int64(frames)
            }
            let from = Int(emittedUpTo - first) * channelCount
            let to = Int(end - first) * channelCount
            try period.samples.withUnsafeBufferPointer { try emit(UnsafeBufferPointer(rebasing: $0[from..<to])) }
            emittedUpTo = end
        }
        return emittedUpTo - start
    }
}

/// The last period an offline engine rendered, as its null stream handed it over.
private final class RenderedPeriod: @unchecked Sendable {
    private(set) var samples: [Float]

    init(capacity: Int) {
        samples = []
        samples.reserveCapacity(capacity)
    }

    /// Keeps the interleaved floats in `bytes`.
    func copy(_ bytes: UnsafeRawBufferPointer) {
        samples.removeAll(keepingCapacity: true)
        samples.append(contentsOf: bytes.assumingMemoryBound(to: Float.self))
    }
}
