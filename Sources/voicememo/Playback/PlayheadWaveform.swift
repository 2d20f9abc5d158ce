import AudioIO
import FoundationEssentials
import MemoStore
import Synchronization

/// The waveform `play` draws under the meter, the play head moving along it: the item heard's, a memo's kept one or a
/// file's, measured on a background task so that playback starts at once (a memo measured so is kept for next time),
/// and measured anew when another item is heard (memos in turn). An address has none: measuring it would download all
/// of it at once, ahead of what playback needs.
///
/// The columns are worked out once per terminal width, and the line made again only when the head moves to another
/// column or the width changes: most of the meter's 20 frames a second find it where it was.
final class PlayheadWaveform: Sendable {
    private struct State {
        /// The item whose waveform it is.
        var url: URL?
        var waveform: Waveform?
        /// The columns for the width last drawn.
        var text: (columns: Int, text: WaveformText)?
        /// The line last made, and the column of its head.
        var line: (head: Int, text: String)?
    }

    private let state = Mutex(State())

    /// The line `columns` wide for `item` with the head at `position` of `duration` seconds: nil for no item or an
    /// address (no line), empty until the waveform is there (or when there is none), so that the display keeps its
    /// height.
    func line(of item: PlayItem?, columns: Int, position: TimeInterval, duration: TimeInterval) -> String? {
        guard let item, !item.isRemote else { return nil }
        return state.withLock { state in
            if state.url != item.url {
                state = State(url: item.url)
                measure(item)
            }
            guard let waveform = state.waveform, columns > 0 else { return "" }
            if state.text?.columns != columns {
                state.text = (columns, WaveformText(waveform, columns: columns))
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
}
