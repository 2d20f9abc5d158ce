import AudioIO
import FoundationEssentials
import Synchronization
import SystemEdge
import SystemPackage

/// A live display on the terminal: lines redrawn in place, the cursor hidden and typed keys neither
/// echoed nor line-buffered while it runs, everything put back by ``finish()`` — and, should the process
/// end another way (an error, `exit`), by an exit handler. Without drawing (``init(drawing:)``), it only takes
/// the keys: for a command that draws nothing but still listens to the keyboard.
///
/// Ctrl-C still sends SIGINT (the terminal keeps its signal keys): commands watch for it
/// (``StopSignals``, ``PlaybackRun``) and finish the display. Ctrl-Z hands the terminal back as it was
/// before the process stops, and `fg` takes it again (``AudioSession`` tells of both, once it is active):
/// the shell gets its own modes and cursor, and the keys work again after `fg`, also when the shell put
/// its modes back meanwhile. A display continued in the background (`bg`) draws nothing and leaves the
/// terminal's modes alone until it is in the foreground again.
///
/// **Thread safety**: one task draws and finishes; ``note(_:)`` may come from any other, as do the
/// session's Ctrl-Z and `fg`.
final class TerminalDisplay: @unchecked Sendable {
    /// The terminal's settings before the display changed them, and whether a display hid the cursor,
    /// for the exit handler. Only the main flow of a command makes and finishes displays.
    nonisolated(unsafe) private static var saved: Terminal.Modes?
    nonisolated(unsafe) private static var hidesCursor = false

    /// Where the display is in its life.
    private enum Presence {
        /// Drawing, the terminal in the display's modes.
        case showing
        /// The process is stopped (or about to be): the terminal is the shell's.
        case stopped
        /// Continued, but not in the terminal's foreground (`bg`): it takes the terminal back when it is.
        case waitingForForeground
        case finished
    }

    /// Whether standard input is a terminal, sending each key as it is typed while the display shows
    /// (see ``Key/typed()``).
    let takesKeys: Bool
    /// Whether it draws on standard output (and hides the cursor there), or only takes the keys.
    private let draws: Bool
    private struct State {
        var presence = Presence.showing
        /// The lines on the screen, as last drawn (none after a note, or after the process was stopped).
        var drawn: [String] = []
        /// The width the lines were drawn for.
        var drawnColumns = 0
    }

    /// Keeps notes, redraws, Ctrl-Z and `fg` from interleaving their escape sequences and modes.
    private let state = Mutex(State())
    private var suspension: AudioSession.ObservationToken?

    /// Whether standard output is a terminal that can move its cursor: not a pipe or a file, and not
    /// `TERM=dumb` (an editor's shell buffer), where commands print plain lines instead.
    static var isAvailable: Bool {
        Terminal(.standardOutput) != nil && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    /// The display on standard output, or `nil` when it is not available (``isAvailable``). Without
    /// `drawing`, the keys alone: `nil` unless standard input is a terminal. Started in the background
    /// (`voicememo play … &`), it waits for the foreground before it changes the terminal's modes or draws.
    init?(drawing: Bool = true) {
        takesKeys = Terminal(.standardInput)?.modes() != nil
        guard drawing ? Self.isAvailable : takesKeys else { return nil }
        draws = drawing
        _ = Self.restoreAtExit
        if Self.isInForeground {
            takeTerminal()
        } else {
            state.withLock { $0.presence = .waitingForForeground }
        }
        suspension = AudioSession.shared.addObserver { [weak self] event in
            switch event {
            case .interruptionBegan(.processSuspended): self?.stop()
            case .interruptionEnded(.processSuspended, _): self?.resume()
            default: break
            }
        }
    }

    /// Whether colors may be used: the `NO_COLOR` convention (https://no-color.org) says not when it is set.
    static let allowsColor = (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty

    /// The terminal's width in columns (80 when it does not say).
    var columns: Int { Self.outputColumns ?? 80 }

    /// The width in columns of the terminal standard output is, if it is one that says.
    static var outputColumns: Int? {
        Terminal(.standardOutput)?.columns
    }

    /// Replaces the lines drawn last with `lines`, in one write so that the terminal never shows half a
    /// frame. Each line must fit the width (``columns``): one that wraps would push the display down.
    /// A frame the same as the one on the screen is not written again: the meter's levels change with each device
    /// period, fewer times a second than it is redrawn. After the width changed, what was drawn is cleared to the
    /// end of the screen first; a frame of fewer lines clears what is left below it. Nothing is drawn while the process is stopped or in the background.
    func draw(_ lines: [String], columns: Int) {
        state.withLock { state in
            if state.presence == .waitingForForeground, Self.isInForeground {
                takeTerminal()
                state.presence = .showing
                state.drawn = []
            }
            guard draws, state.presence == .showing, lines != state.drawn || columns != state.drawnColumns else { return }
            var text = state.drawn.isEmpty ? "" : "\u{1B}[\(state.drawn.count)F"
            if !state.drawn.isEmpty, columns != state.drawnColumns { text += "\u{1B}[J" }
            for line in lines { text += "\u{1B}[2K" + line + "\n" }
            // Fewer lines than before (a mono memo after a stereo one): what is left of the old frame goes.
            if lines.count < state.drawn.count, columns == state.drawnColumns { text += "\u{1B}[J" }
            Self.write(text)
            state.drawn = lines
            state.drawnColumns = columns
        }
    }

    /// Prints `line` where the live lines are, to stay above them: the next ``draw(_:columns:)`` starts below it.
    func note(_ line: String) {
        state.withLock { state in
            let up = state.drawn.isEmpty ? "" : "\u{1B}[\(state.drawn.count)F"
            Self.write(up + "\u{1B}[2K" + line + "\n\u{1B}[J")
            state.drawn = []
        }
    }

    /// Takes the lines drawn last off the screen: the next output starts where they began.
    func clear() {
        state.withLock { state in
            guard !state.drawn.isEmpty else { return }
            Self.write("\u{1B}[\(state.drawn.count)F\u{1B}[J")
            state.drawn = []
        }
    }

    /// Leaves the last lines on the screen and puts the terminal back as it was. Calling it again does nothing.
    func finish() {
        suspension = nil
        state.withLock { state in
            // Stopped or in the background, the terminal is already the shell's: only the exit handler's duty ends.
            if state.presence == .showing { Self.giveTerminalBack() }
            state.presence = .finished
        }
    }

    /// Ctrl-Z: the terminal goes back to the shell as it was, before the process stops.
    private func stop() {
        state.withLock { state in
            guard state.presence == .showing || state.presence == .waitingForForeground else { return }
            if state.presence == .showing { Self.giveTerminalBack() }
            state.presence = .stopped
            // The shell writes below what was drawn ("Stopped", the prompt, `fg`): the next frame starts afresh.
            state.drawn = []
        }
    }

    /// `fg` (or `bg`): the display takes the terminal again, as the shell left it, once it is in the foreground.
    private func resume() {
        state.withLock { state in
            guard state.presence == .stopped else { return }
            if Self.isInForeground {
                takeTerminal()
                state.presence = .showing
            } else {
                state.presence = .waitingForForeground
            }
        }
    }

    /// Whether the process is in the terminal's foreground: changing the terminal's modes from the
    /// background would stop it (SIGTTOU).
    private static var isInForeground: Bool {
        (Terminal(.standardInput) ?? Terminal(.standardOutput))?.isInForeground ?? false
    }

    /// Remembers the terminal's modes, turns off echo and line editing, hides the cursor if it draws.
    private func takeTerminal() {
        if takesKeys, let input = Terminal(.standardInput), let modes = input.modes() {
            Self.saved = modes
            input.setModes(modes.takingKeysAsTyped)
        }
        if draws {
            Self.write("\u{1B}[?25l")
            Self.hidesCursor = true
        }
    }

    /// Puts back the modes ``takeTerminal()`` remembered and shows the cursor if it was hidden.
    private static func giveTerminalBack() {
        if let modes = saved {
            Terminal(.standardInput)?.setModes(modes)
            saved = nil
        }
        if hidesCursor {
            write("\u{1B}[?25h")
            hidesCursor = false
        }
    }

    private static func write(_ text: String) {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }

    private static let restoreAtExit: Void = {
        CurrentProcess.atExit { TerminalDisplay.giveTerminalBack() }
    }()
}
