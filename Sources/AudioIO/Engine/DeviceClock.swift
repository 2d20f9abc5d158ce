import Atomics
import SystemEdge

/// An engine's clock: device frames heard (playback: written less those the device still holds) or captured
/// (capture: read, and waiting to be), over the rate, continued by the monotonic clock between transfers. While the
/// engine idles it runs on the monotonic clock alone, from the frame where the device went quiet, so that device time
/// never jumps when the stream starts again.
///
/// **Threads**: the stream thread (or an offline engine's rendering thread) alone moves it; any thread reads it.
///
/// **Real-time contract**: what the stream thread calls stores atomics and reads the monotonic clock; nothing
/// allocates, locks or logs.
final class DeviceClock: Sendable {
    let sampleRate: Double
    let direction: StreamDirection
    /// Device frames moved: written (playback) or read, lost input included (capture).
    let framesTransferred = ManagedAtomic<Int64>(0)
    /// Device frames heard (playback) or captured (capture) at ``heardAt``.
    private let heardFrames = ManagedAtomic<Int64>(0)
    private let heardAt = ManagedAtomic<Int>(0)
    private let idle = ManagedAtomic<Bool>(true)
    private let idleFrames = ManagedAtomic<Int64>(0)
    private let idleSince = ManagedAtomic<Int>(MonotonicClock.nanoseconds())

    init(sampleRate: Int, direction: StreamDirection) {
        self.sampleRate = Double(sampleRate)
        self.direction = direction
    }

    /// Whether the engine idles, its clock on the monotonic clock alone.
    var isIdle: Bool { idle.load(ordering: .acquiring) }

    /// Seconds on the device's clock.
    var currentTime: Double {
        let now = MonotonicClock.nanoseconds()
        if idle.load(ordering: .acquiring) {
            let elapsed = Double(now - idleSince.load(ordering: .relaxed)) / 1e9
            return Double(idleFrames.load(ordering: .relaxed)) / sampleRate + elapsed
        }
        let frames = Double(heardFrames.load(ordering: .relaxed))
        let elapsed = Double(now - heardAt.load(ordering: .acquiring)) / 1e9
        let estimate = frames + elapsed * sampleRate
        // What is heard cannot be ahead of what was written.
        return (direction == .playback ? min(estimate, Double(framesTransferred.load(ordering: .relaxed))) : estimate) / sampleRate
    }

    /// The device frame at `deviceTime` seconds on this clock.
    func frame(at deviceTime: Double) -> Int64 { Int64(frames: deviceTime, rate: sampleRate) }

    /// Stream thread: `frames` in all have been moved, and the device holds `delay` (playback: written, not yet
    /// heard; capture: captured, not yet read).
    func noteTransfer(upTo frames: Int64, delay: Int) {
        framesTransferred.store(frames, ordering: .relaxed)
        heardFrames.store(direction == .playback ? frames - Int64(delay) : frames + Int64(delay), ordering: .relaxed)
        heardAt.store(MonotonicClock.nanoseconds(), ordering: .releasing)
    }

    /// Stream thread: the device dropped what it held, unheard; the clock goes on from `heard`.
    func restart(at heard: Int64) {
        framesTransferred.store(heard, ordering: .relaxed)
        heardFrames.store(heard, ordering: .relaxed)
        heardAt.store(MonotonicClock.nanoseconds(), ordering: .releasing)
    }

    /// Stream thread: the device went quiet; from now on the clock runs on the monotonic clock, from where playback
    /// stopped writing or, for capture, from now.
    func enterIdle() {
        idleFrames.store(direction == .playback ? framesTransferred.load(ordering: .relaxed) : frame(at: currentTime), ordering: .relaxed)
        idleSince.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        idle.store(true, ordering: .releasing)
    }

    /// Stream thread: the stream moves frames again, counted on from the idle clock's frame now.
    func leaveIdle() {
        let now = frame(at: currentTime)
        framesTransferred.store(now, ordering: .relaxed)
        heardFrames.store(now, ordering: .relaxed)
        heardAt.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        idle.store(false, ordering: .releasing)
    }

    /// An offline engine's clock: never idle, its time the frames rendered.
    func runOffline() {
        idle.store(false, ordering: .relaxed)
    }
}
