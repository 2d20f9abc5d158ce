import AudioIO
import FoundationEssentials
import MemoStore
import Synchronization

/// The waveform `play` draws under the meter, the play head moving along it: the item heard's, a memo's kept one or a
/// file's, measured on a background task so that playback starts at once (a memo measured so is kept for next time).
/// An address has none: measuring it would download all of it at once, ahead of what playback needs.
/// The columns are worked out once per terminal width; each frame only places the head.
final class PlayheadWaveform: Sendable {
    private struct State {
        var waveform: Waveform?
        /// The columns for the width last drawn.
        var text: (columns: Int, text: WaveformText)?
    }

    private let state = Mutex(State())

    /// Starts measuring (or reading) the waveform of `item`; nil for an address.
    init?(of item: PlayItem) {
        guard !item.isRemote else { return nil }
        Task.detached(priority: .utility) { [weak self] in
            let waveform: Waveform? = if let memo = item.memo {
                try? MemoStore(directory: MemoStore.defaultDirectory()).waveform(of: memo)
            } else {
                try? Waveform(measuring: AudioFile(forReading: item.url))
            }
            self?.state.withLock { $0.waveform = waveform }
        }
    }

    /// The line `columns` wide with the head at `position` of `duration` seconds; empty until the waveform is there
    /// (or when there is none), so that the display keeps its height.
    func line(columns: Int, position: TimeInterval, duration: TimeInterval) -> String {
        state.withLock { state in
            guard let waveform = state.waveform, columns > 0 else { return "" }
            if state.text?.columns != columns { state.text = (columns, WaveformText(waveform, columns: columns)) }
            return state.text?.text.row(playHeadAt: duration > 0 ? position / duration : 0, color: TerminalDisplay.allowsColor) ?? ""
        }
    }
}
