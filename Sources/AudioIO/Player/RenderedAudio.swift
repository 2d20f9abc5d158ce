import FoundationEssentials

/// A block of what a player rendered, as its tap hands it over (``BasePlayer/renderedAudio()``,
/// ``BasePlayer/renderedAudio()``), after `MTAudioProcessingTap`: for visualizers, analysis, a recording of what
/// was played.
public struct RenderedAudio: Sendable, Equatable {
    /// Interleaved samples, ``channelCount`` per frame: what the player adds to the device's mix, after volume, fades
    /// and pan, at the device's rate and channels.
    public let samples: [Float]
    /// Channels per frame: the device's.
    public let channelCount: Int
    /// Frames per second: the device's.
    public let sampleRate: Double
    /// Seconds on the device clock (``AudioPlayer/deviceCurrentTime``'s, an ``OfflineRenderer``'s
    /// ``OfflineRenderer/currentTime``) of the first frame: when it is mixed into the device's stream, which a device
    /// plays out after what it holds queued.
    public let deviceTime: TimeInterval
    /// Seconds into the item of the first frame, on the clock of the player's `currentTime`.
    public let itemTime: TimeInterval
    /// Frames the render thread could not hand over just before this block, which never waits for the tap: 0 unless
    /// the stream's reader fell a second behind (an ``OfflineRenderer`` renders faster than any reader).
    public let framesDroppedBefore: Int

    /// Frames in the block.
    public var frameCount: Int { samples.count / channelCount }
}
