import Dispatch
import SystemEdge

/// Idling: when nothing plays or records, the stream thread lets the device go quiet and sleeps, and the clock runs on
/// the monotonic clock (see ``DeviceClock``) until a client needs the stream again.
///
/// **Real-time contract**: ``enterIdle()`` and ``leaveIdle()`` run on the stream thread, under its contract
/// (`StreamEngine+StreamThread.swift`): no allocation, no lock, no logging; they wait only on ``streamWake``.
extension StreamEngine {
    /// Nothing to move: playback plays out what the device holds (or drops it, when a voice was cut off), capture
    /// stops; then the clock runs on the monotonic clock.
    func enterIdle() {
        guard !clock.isIdle else { return }
        switch cycle {
        case .render(let mixer) where queuedAudioIsUnwanted(mixer): discardQueuedAudio(mixer)
        case .render: stream.drain()
        case .capture: stream.drop()
        }
        queuedFrames.store(0, ordering: .relaxed)
        clock.enterIdle()
    }

    /// Something to move: wait for the earliest scheduled start (playback: less the device's latency), then go on
    /// counting frames from the idle clock, so that device time never jumps. Capture drops what the device held from
    /// before (a sound server keeps capturing for a prepared stream), so that the first frame read is from now.
    func leaveIdle() {
        while let start = startFrameToWaitFor, frame(at: deviceCurrentTime) < start {
            let wait = Double(start - frame(at: deviceCurrentTime)) / sampleRate
            _ = streamWake.wait(timeout: .now() + min(wait, 0.005))
        }
        if direction == .capture { stream.drop() }
        clock.leaveIdle()
    }

    /// The frame to wait for before moving any, when every client that needs the stream waits for its start.
    private var startFrameToWaitFor: Int64? {
        switch cycle {
        case .render(let mixer): mixer.startFrameToWaitFor.map { $0 - Int64(configuration.bufferFrames) }
        case .capture(let capture): capture.earliestScheduledFrame
        }
    }

    /// Waits, up to `timeout` seconds, until every capture engine with no tap capturing has stopped its device:
    /// after an interruption paused the recorders, a capture thread must not be left in a read that the process
    /// stopping would turn into an overrun, heard later as silence in a resumed recording.
    static func waitUntilPausedCaptureStops(timeout: Double) {
        let deadline = MonotonicClock.nanoseconds() + Int(timeout * 1e9)
        for engine in all(.capture) {
            while !engine.clock.isIdle, !engine.needsRunning, engine.failure == nil, MonotonicClock.nanoseconds() < deadline {
                MonotonicClock.sleep(nanoseconds: 1_000_000)
            }
        }
    }
}
