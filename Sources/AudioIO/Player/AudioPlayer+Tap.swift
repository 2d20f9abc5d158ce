import FoundationEssentials

/// A tap on what a player renders, after `MTAudioProcessingTap` on an `AVPlayerItem`: for visualizers and analysis.
extension AudioPlayer {
    /// The frames the player renders from now on, as they are mixed into the device's stream (after volume, fades and
    /// pan), in blocks with their time on the device clock and in the file. Each call makes a new stream; the streams
    /// end with the player.
    ///
    /// The render thread never waits for it: it writes each period's frames into a lock-free ring (a second of audio)
    /// that a thread of the tap's empties twice a period (every 10 ms at the shortest: see
    /// ``AudioSession/ioBufferDuration``). A reader that falls behind by more than that ring loses frames,
    /// counted in ``RenderedAudio/framesDroppedBefore``.
    public func renderedAudio() -> AsyncStream<RenderedAudio> {
        state.withLock { PlayerTap.made(&$0.tap, playing: $0.voice, on: $0.engine) }.stream()
    }
}

/// The same tap on a queue: every item's frames, in turn.
extension AudioQueuePlayer {
    /// The frames the queue renders from now on, item after item, as ``AudioPlayer/renderedAudio()`` streams a
    /// player's; a block's ``RenderedAudio/itemTime`` is in the item it comes from.
    public func renderedAudio() -> AsyncStream<RenderedAudio> {
        state.withLock { PlayerTap.made(&$0.tap, playing: $0.voice, on: $0.engine) }.stream()
    }
}
