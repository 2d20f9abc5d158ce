/// Offline rendering: an offline engine has no stream thread; ``OfflineRenderer`` asks for its periods, which are
/// rendered on the asking thread into a ``NullStream``, so that its clock is the frames rendered.
extension StreamEngine {
    /// Mixes and writes the next `frames` frames (at most a period), on the caller's thread.
    func renderOffline(frames: Int) {
        guard isOffline, case .render(let mixer) = cycle, let periodBuffers else { preconditionFailure("not an offline playback engine") }
        let events = eventCount
        _ = renderPeriod(mixer, floats: periodBuffers.floats, raw: periodBuffers.raw, frames: min(frames, configuration.periodFrames))
        tellEventThread(since: events)
    }

    /// The frames rendered so far, which are its clock.
    var framesRendered: Int64 { clock.framesTransferred.load(ordering: .relaxed) }

    /// Whether a voice plays or waits to start: an offline render goes on while one does.
    var hasVoicesToRender: Bool {
        guard case .render(let mixer) = cycle else { return false }
        return mixer.hasVoicesToPlay
    }

    /// The device frame after the last frame any voice has mixed.
    var endOfMixedFrames: Int64 {
        guard case .render(let mixer) = cycle else { return 0 }
        return mixer.endOfMix.load(ordering: .relaxed)
    }
}
