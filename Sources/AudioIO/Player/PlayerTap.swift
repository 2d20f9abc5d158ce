import FoundationEssentials
import Synchronization
import SystemEdge

/// A player's tap: the frames its voices were mixed with, taken from each voice's ``RenderTap`` by a thread of its own
/// every half period of the device (10 ms at least) and handed to the streams of `renderedAudio()` as ``RenderedAudio``.
///
/// **Threads**: made and attached under the player's lock; its thread reads the rings (their only consumer) and
/// yields under its own lock. The render threads only write the rings.
final class PlayerTap: @unchecked Sendable {
    /// How often the tap's thread looks at the rings at most: the render thread writes them once a period, a quarter
    /// of a second with `play`'s, and looking more often than twice a period finds nothing new.
    static let shortestInterval = 0.01
    /// Seconds a voice's ring holds: what the tap's thread may fall behind before the render thread drops frames.
    static let ringSeconds = 1.0

    /// The ring of one voice, in the order voices were made: a seek's or a loop's voice after the one before.
    private struct Attachment {
        let ring: RenderTap
        weak var voice: Voice?
        let sampleRate: Double
        let channelCount: Int
    }

    private let state = Mutex((
        attachments: [Attachment](), subscribers: EventSubscribers<RenderedAudio>(), isRunning: false, interval: shortestInterval))

    deinit {
        state.withLock { $0.subscribers.finish() }
    }

    /// The tap in `tap`, made now if there is none, and attached to `voice`, playing on `engine`, if one plays.
    static func made(_ tap: inout PlayerTap?, playing voice: Voice?, on engine: StreamEngine?) -> PlayerTap {
        if let tap { return tap }
        let made = PlayerTap()
        tap = made
        if let voice, let engine { made.attach(to: voice, on: engine) }
        return made
    }

    /// Makes the render thread hand over `voice`'s frames from its next period on (at once, even while it plays).
    func attach(to voice: Voice, on engine: StreamEngine) {
        let channels = engine.configuration.channelCount
        let ring = voice.tap.storeIfNilThenLoad(
            RenderTap(channelCount: channels, capacityFrames: Int(engine.sampleRate * Self.ringSeconds)))
        let halfPeriod = Double(engine.configuration.periodFrames) / engine.sampleRate / 2
        state.withLock { state in
            state.attachments.append(Attachment(ring: ring, voice: voice, sampleRate: engine.sampleRate, channelCount: channels))
            state.interval = max(Self.shortestInterval, halfPeriod)
        }
    }

    /// A new stream of the blocks rendered from now on; the tap's thread starts with the first.
    func stream() -> AsyncStream<RenderedAudio> {
        AsyncStream { continuation in
            let starts = state.withLock { state in
                state.subscribers.add(continuation)
                defer { state.isRunning = true }
                return !state.isRunning
            }
            guard starts else { return }
            SystemThread.detach(name: "audio-tap", realtime: false) { [weak self] in
                // Held weakly between looks: the tap goes with its player, and the thread with it.
                while let tap = self {
                    let interval = tap.drain()
                    MonotonicClock.sleep(seconds: interval)
                }
            }
        }
    }

    /// Takes what every ring holds, in order, to the streams; forgets the rings of voices gone and read to the end.
    /// Returns how long to wait before the next look.
    private func drain() -> TimeInterval {
        let attachments = state.withLock { $0.attachments }
        var blocks: [RenderedAudio] = []
        for attachment in attachments {
            let ring = attachment.ring
            while let marker = ring.markers.pop() {
                var samples = [Float](repeating: 0, count: marker.frames * attachment.channelCount)
                samples.withUnsafeMutableBufferPointer { _ = ring.audio.read(into: $0) }
                blocks.append(RenderedAudio(
                    samples: samples, channelCount: attachment.channelCount, sampleRate: attachment.sampleRate,
                    deviceTime: Double(marker.deviceFrame) / attachment.sampleRate, itemTime: marker.fileTime,
                    framesDroppedBefore: ring.droppedFrames.exchange(0, ordering: .relaxed)))
            }
        }
        return state.withLock { state in
            // A voice gone writes no more: its ring, once read, can go.
            state.attachments.removeAll { $0.voice == nil && $0.ring.markers.availableToRead == 0 }
            state.subscribers.yield(blocks)
            return state.interval
        }
    }
}
