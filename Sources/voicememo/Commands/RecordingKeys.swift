import AudioIO
import SystemEdge
import MemoStore

/// What keys do while `record` runs on a terminal: space pauses and resumes, m drops a marker (kept in the index at
/// once, flashed on the status line or printed), q or Enter stops as Ctrl-C does.
///
/// **Thread safety**: ``handle(_:)`` runs on one task; ``stopKey`` and ``marks`` are read by others.
struct RecordingKeys: Sendable {
    let recorder: AudioRecorder
    let store: MemoStore
    let ticket: RecordingTicket
    let progress: RecordingProgress
    let stop: StopSignals
    let keyPause: KeyPause
    /// Whether a marker gets a line of its own: off the live display.
    let printsMarkers: Bool
    /// Called when a key asks the recording to stop.
    let onStop: @Sendable () -> Void
    /// The marker dropped last, for the status line.
    let marks = MarkerFlash()
    /// Set once q or Enter was typed.
    let stopKey = Latch()

    /// Acts on each key typed, until the keys end.
    func handle(_ keys: AsyncStream<Key>) async {
        for await key in keys {
            switch key {
            case .space: togglePause()
            case .quit, .enter:
                stopKey.set()
                onStop()
            case .mark: mark()
            default: break
            }
        }
    }

    private func togglePause() {
        if recorder.isRecording {
            keyPause.set(true)
            recorder.pause()
        } else if !progress.hasFinished, recorder.summary == nil, !stopKey.isSet, stop.received == nil {
            // Only a paused recording resumes: record() after the end would start the file anew.
            keyPause.set(false)
            recorder.record()
        }
    }

    private func mark() {
        guard let marker = recorder.addMarker() else { return }
        // In the index at once: a recording whose process dies keeps its markers. Should the store refuse, the file still
        // gets them.
        try? store.noteMarkers(recorder.markers, of: ticket)
        marks.dropped(recorder.markers.count)
        if printsMarkers {
            print("Marker \(recorder.markers.count) at \(Describe.duration(marker.time(atSampleRate: ticket.settings.sampleRate)))")
            CurrentProcess.flushOutput()
        }
    }
}
