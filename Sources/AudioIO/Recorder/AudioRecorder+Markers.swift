extension AudioRecorder {
    /// Drops a marker at the current recording time: the frame of the file that the next captured frame becomes, which
    /// is ``currentTime`` × the file's rate (while paused, where recording resumes). It goes into the file when the
    /// recording finishes, where the format has a place for it (WAV cue points, Opus `CHAPTERnnn` comments, M4A chapters: see
    /// ``AudioMarker``), and into ``markers``.
    ///
    /// - Parameter name: What to call it, if anything.
    /// - Returns: The marker, or `nil` when no recording is prepared (nothing to mark yet, or already finished) or it
    ///   holds ``AudioMarker/maximumStoredCount`` markers already.
    @discardableResult
    public func addMarker(_ name: String? = nil) -> AudioMarker? {
        state.withLock { state in addMarker(name, &state) }
    }

    /// ``addMarker(_:)`` under the recorder's lock.
    func addMarker(_ name: String?, _ state: inout State) -> AudioMarker? {
        guard let tap = state.tap, let engine = state.engine, let writer = state.writer,
              state.markers.count < AudioMarker.maximumStoredCount
        else { return nil }
        let frames = tap.deliveredFrames.load(ordering: .acquiring)
        let position = engine.sampleRate == settings.sampleRate
            ? frames : Int64((Double(frames) * settings.sampleRate / engine.sampleRate).rounded())
        let marker = AudioMarker(framePosition: position, name: name)
        guard writer.addMarker(marker) else { return nil }
        state.markers.append(marker)
        return marker
    }

    /// The markers of the recording being made, or else of the last one, in the order they were dropped (see
    /// ``addMarker(_:)``), in frames of the file's rate.
    public var markers: [AudioMarker] { state.withLock { $0.markers } }
}
