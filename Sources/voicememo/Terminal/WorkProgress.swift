/// How far a long piece of work has come (an import of an hour of audio), on a line redrawn in place on a terminal:
/// drawn only once the work has taken half a second, so that quick work prints nothing but its result, at most ten
/// times a second, and taken off the screen when the work ends. Off a terminal it draws nothing.
///
/// **Thread safety**: one thread (the command's) uses it.
final class WorkProgress {
    private let display: TerminalDisplay?
    private var started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?

    /// A progress line on standard output when `showing` and it is a terminal that can redraw a line.
    init(showing: Bool) {
        display = showing ? TerminalDisplay(drawing: true) : nil
    }

    /// Starts timing a new piece of work.
    func begin() {
        started = .now
        lastDrawn = nil
    }

    /// Whether it draws: standard output is a terminal that can redraw a line, and it was asked to show.
    var isDrawing: Bool { display != nil }

    /// Shows `what` (e.g. “Importing “talk.flac””) with `fraction` of it done (0 to 1).
    func show(_ what: String, fraction: Double) {
        show { columns in
            let percent = " \(Int((fraction * 100).rounded(.down))) %"
            return what.truncated(toColumns: max(1, columns - percent.count)) + percent
        }
    }

    /// Shows the line `line` makes for the terminal's width in columns (read at each redraw), which it must fit.
    func show(_ line: (_ columns: Int) -> String) {
        guard let display else { return }
        let now = ContinuousClock.now
        guard now - started >= .milliseconds(500), lastDrawn.map({ now - $0 >= .milliseconds(100) }) ?? true else { return }
        lastDrawn = now
        let columns = display.columns
        display.draw([line(columns)], columns: columns)
    }

    /// Prints `line` in place of the progress line, which the next `show` draws below it.
    func print(_ line: String) {
        if let display { display.note(line) } else { Swift.print(line) }
    }

    /// Takes the progress line off the screen, for a message written elsewhere (standard error).
    func clear() {
        display?.clear()
    }

    /// Puts the terminal back as it was.
    func finish() {
        display?.finish()
    }
}
