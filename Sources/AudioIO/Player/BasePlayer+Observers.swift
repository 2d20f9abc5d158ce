import Dispatch
import FoundationEssentials

/// Time observers, as `AVPlayer`'s (the logic is ``TimeObservers``), and the tap on what a player renders, after
/// `MTAudioProcessingTap` on an `AVPlayerItem`.
extension BasePlayer {
    /// Calls `block` with ``currentTime`` each time playback crosses a multiple of `interval` seconds (5 ms at least),
    /// when it starts, and when a queue's next item does, as `AVPlayer.addPeriodicTimeObserver(forInterval:queue:using:)`;
    /// and, as AVPlayer's, whenever the time jumps (a seek, also while paused; a loop starting over) and when playback
    /// starts or stops, with the position then. Precision is about 5 ms.
    ///
    /// - Parameters:
    ///   - interval: Seconds between calls while playing, 0.005 at least.
    ///   - queue: Where `block` runs: asynchronously on that queue, or with nil (the default) on the engine's event
    ///     thread, or on the thread whose call made the time jump: keep it short there.
    ///   - block: Called with the position, in seconds.
    /// - Returns: What ``removeTimeObserver(_:)`` takes.
    public func addPeriodicTimeObserver(
        forInterval interval: TimeInterval, queue: DispatchQueue? = nil, using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock {
            ($0.observers.addPeriodic(interval: interval, queue: queue, voice: $0.voice, block: block), $0.engine)
        }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// Calls `block` with ``currentTime`` each time playback passes one of `times` (seconds into the file, or into
    /// each item of a queue that lasts that long), also on every loop, as
    /// `AVPlayer.addBoundaryTimeObserver(forTimes:queue:using:)`. Precision is about 5 ms.
    ///
    /// - Parameters:
    ///   - times: Seconds into the file (or item) to be told of.
    ///   - queue: Where `block` runs: asynchronously on that queue, or with nil (the default) on the engine's event
    ///     thread: keep it short there.
    ///   - block: Called with the position, in seconds.
    /// - Returns: What ``removeTimeObserver(_:)`` takes.
    public func addBoundaryTimeObserver(
        forTimes times: [TimeInterval], queue: DispatchQueue? = nil, using block: @escaping @Sendable (TimeInterval) -> Void
    ) -> TimeObserver {
        let (observer, engine) = state.withLock {
            ($0.observers.addBoundary(times: times, queue: queue, voice: $0.voice, block: block), $0.engine)
        }
        // Its event thread sleeps while no voice needs ticks.
        engine?.wakeEventThread()
        return observer
    }

    /// ``currentTime`` every `interval` seconds while playing, and whenever the time jumps or playback pauses, as
    /// ``addPeriodicTimeObserver(forInterval:queue:using:)`` calls its block, as an asynchronous sequence; observing ends
    /// when the sequence's task is cancelled or the stream dropped.
    public func periodicTimes(forInterval interval: TimeInterval) -> AsyncStream<TimeInterval> {
        let (stream, continuation) = AsyncStream<TimeInterval>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let observer = addPeriodicTimeObserver(forInterval: interval) { continuation.yield($0) }
        continuation.onTermination = { [weak self] _ in self?.removeTimeObserver(observer) }
        return stream
    }

    /// Stops calling the block of `observer`, which an `add…TimeObserver` of this player returned.
    public func removeTimeObserver(_ observer: TimeObserver) {
        state.withLock { $0.observers.remove(observer, voice: $0.voice) }
    }

    /// The frames the player renders from now on, as they are mixed into the device's stream (after volume, fades and
    /// pan), in blocks with their time on the device clock and in the file (a queue's: in the item it comes from).
    /// Each call makes a new stream; the streams end with the player.
    ///
    /// The render thread never waits for it: it writes each period's frames into a lock-free ring (a second of audio)
    /// that a thread of the tap's empties twice a period (every 10 ms at the shortest: see
    /// ``AudioSession/ioBufferDuration``). A reader that falls behind by more than that ring loses frames,
    /// counted in ``RenderedAudio/framesDroppedBefore``.
    public func renderedAudio() -> AsyncStream<RenderedAudio> {
        state.withLock { PlayerTap.made(&$0.tap, playing: $0.voice, on: $0.engine) }.stream()
    }

}
