import AudioIO
import FoundationEssentials
import MemoStore
import Synchronization

/// The waveform `play` draws under the meter, the play head moving along it: the item heard's, a memo's kept one or a
/// file's, measured on a background task so that playback starts at once (a memo measured so is kept for next time),
/// and measured anew when another item is heard (memos in turn). An address's is measured from what is downloaded of it
/// from its start, as it comes, a few times a second and each frame once; what is not here yet is drawn `·`, as the
/// download bar draws it. Reading never runs ahead of the download, so it asks the server for nothing more.
///
/// The columns are worked out once per terminal width, and the line made again only when the head moves to another
/// column or the width changes: most of the meter's 20 frames a second find it where it was.
final class PlayheadWaveform: Sendable {
    private struct State {
        /// The item whose waveform it is.
        var url: URL?
        var waveform: Waveform?
        /// The part (0…1) of the item that ``waveform`` covers: less than all of an address not downloaded yet.
        var known = 1.0
        /// What is downloaded of the address, in seconds, as the display last saw it.
        var loaded: [Range<TimeInterval>] = []
        /// The columns for the width last drawn.
        var text: (columns: Int, text: WaveformText)?
        /// The line last made, and the column of its head.
        var line: (head: Int, text: String)?
    }

    private let state = Mutex(State())

    /// The line `columns` wide for `item` with the head at `position` of `duration` seconds: nil for no item (no
    /// line), empty until the waveform is there (or when there is none), so that the display keeps its height.
    /// `loaded` is what is downloaded of an address, in seconds (nil for a file).
    func line(
        of item: PlayItem?, columns: Int, position: TimeInterval, duration: TimeInterval, loaded: [Range<TimeInterval>]?
    ) -> String? {
        guard let item else { return nil }
        return state.withLock { state in
            if state.url != item.url {
                state = State(url: item.url)
                if item.isRemote { measureDownloaded(item) } else { measure(item) }
            }
            if let loaded { state.loaded = loaded }
            guard let waveform = state.waveform, columns > 0 else { return "" }
            if state.text?.columns != columns {
                state.text = (columns, WaveformText(waveform, columns: columns, known: state.known))
                state.line = nil
            }
            guard let text = state.text?.text else { return "" }
            let head = text.column(at: duration > 0 ? position / duration : 0)
            if state.line?.head != head { state.line = (head, text.row(playHeadIn: head, color: TerminalDisplay.allowsColor)) }
            return state.line?.text ?? ""
        }
    }

    /// Starts measuring (or reading) the waveform of `item`, kept if it is still the item heard when it is there.
    private func measure(_ item: PlayItem) {
        Task.detached(priority: .utility) { [weak self] in
            let waveform: Waveform? = if let memo = item.memo {
                try? MemoStore(directory: MemoStore.defaultDirectory()).waveform(of: memo)
            } else {
                try? Waveform(measuring: AudioFile(forReading: item.url))
            }
            self?.state.withLock { state in
                if state.url == item.url { state.waveform = waveform }
            }
        }
    }

    /// Bytes a decoder may read past the frames it returns, at most: FFmpeg fills a buffer of 64 KiB.
    private static let readAheadBytes = 65536.0

    /// Measures the address of `item` from its start as far as it is downloaded, and on as more comes (every half
    /// second), while it is the item heard; each measure replaces the waveform drawn.
    private func measureDownloaded(_ item: PlayItem) {
        Task.detached(priority: .utility) { [weak self] in
            // A live stream has no whole to draw.
            guard let file = try? AudioFile(forReading: item.url, options: item.options), file.frameCount > 0, !file.isLive else { return }
            var meter = AudioMeasurement(channelCount: file.channelCount, sampleRate: file.sampleRate, measuringLoudness: false)
            // What a read may take of the bytes after its frames, in seconds, kept short of the download's end so that
            // a read never waits for one.
            let margin = file.duration * Self.readAheadBytes / Double(file.byteCount)
            while file.framePosition < file.frameCount {
                guard let loaded = self?.state.withLock({ $0.url == item.url ? $0.loaded : nil }) else { return }
                let here = loaded.first.flatMap { $0.lowerBound <= 0 ? $0.upperBound : nil } ?? 0
                let end = here >= file.duration ? file.frameCount : Int64(max(here - margin, 0) * file.sampleRate)
                if file.framePosition < end {
                    while file.framePosition < end, let frames = try? file.read(frameCount: Int(min(end - file.framePosition, 16384))),
                          !frames.isEmpty {
                        frames.withUnsafeBufferPointer { meter.add($0) }
                    }
                    let (waveform, known) = (meter.waveform, Double(file.framePosition) / Double(file.frameCount))
                    self?.state.withLock { state in
                        guard state.url == item.url else { return }
                        (state.waveform, state.known, state.text, state.line) = (waveform, known, nil, nil)
                    }
                }
                try? await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
