import AudioIO
import FoundationEssentials
import SystemEdge

/// A level meter as a command shows it while it runs: redrawn in place about 20 times a second on a
/// terminal (bars, peak and average per channel, peak hold, a status line), one plain line per
/// reading when standard output is not a terminal, one JSON object per line with `--json`, or nothing.
///
/// **Thread safety**: readings are shown from one thread at a time: the ``start(_:)`` ticker's while it runs.
final class LiveMeter: @unchecked Sendable {
    /// How readings are shown.
    enum Style {
        case terminal(TerminalDisplay)
        case plain
        case json
        case hidden
    }

    /// Seconds between two redraws on a terminal.
    static let tick = 0.05

    let style: Style
    /// Seconds between two readings.
    let interval: Double
    private var hold = PeakHold()
    /// Seconds on the monotonic clock, as are the times of readings (a `Duration`'s arithmetic costs more than the rest
    /// of a redraw).
    private let started = MonotonicClock.seconds()
    /// The lines last made for the terminal, made again only when what they show changed: most redraws find the
    /// levels of the last device period and the same status.
    private var frame = Frame()
    /// The last reading on the terminal with any sound in it, and when it came.
    private var lastSound: (levels: AudioLevels, at: Double)?

    /// Seconds a silent reading on the terminal may follow one with sound and still be taken for no news: a
    /// recording's device period (`record` moves audio 8 times a second, the display is redrawn 20 times) and a tick.
    static let quietGrace = IOBufferChoice.recording + tick

    /// The meter for standard output: hidden when `hidden`, JSON lines when `json`, else the terminal's
    /// live display when standard output is one, else plain lines; off the terminal, a reading every
    /// `plainInterval` seconds.
    convenience init(hidden: Bool, json: Bool, plainInterval: Double) {
        if hidden {
            self.init(style: .hidden, interval: plainInterval)
        } else if json {
            self.init(style: .json, interval: plainInterval)
        } else if let display = TerminalDisplay() {
            self.init(on: display)
        } else {
            self.init(style: .plain, interval: plainInterval)
        }
    }

    /// The meter on `display`, redrawn every ``tick``.
    convenience init(on display: TerminalDisplay) {
        self.init(style: .terminal(display), interval: Self.tick)
    }

    private init(style: Style, interval: Double) {
        self.style = style
        self.interval = interval
    }

    /// The terminal display it draws on, if it draws on one.
    var display: TerminalDisplay? {
        if case .terminal(let display) = style { return display }
        return nil
    }

    /// Whether readings are shown at all.
    var isShown: Bool {
        if case .hidden = style { return false }
        return true
    }

    /// Calls `reading` on a thread of its own every ``interval`` seconds to show one
    /// reading (``show(_:elapsed:bytes:status:)``), until the ticker it returns is stopped, which must come before
    /// ``finish()``.
    func start(_ reading: @escaping @Sendable (LiveMeter) -> Void) -> Ticker {
        Ticker(every: interval, name: "live-meter") { [self] in reading(self) }
    }

    /// Shows one reading: `levels` per channel (none: the status line alone), `elapsed` seconds and the
    /// file's size if there is one in the plain and JSON lines, and `status` on the terminal: with the line `timeline`
    /// gives for the width (a waveform and its play head) above it, if any, and the line `footer` makes for the width
    /// (`play`'s download bar) below it, if any. On a terminal every line fits its width, read anew for each frame (a
    /// window resized is followed).
    func show(
        _ levels: AudioLevels, elapsed: Double, bytes: Int64?, timeline: (_ columns: Int) -> String? = { _ in nil },
        status: @autoclosure () -> StatusLine, footer: ((_ columns: Int) -> String)? = nil
    ) throws {
        switch style {
        case .terminal(let display):
            let levels = withoutFlicker(levels)
            // Held peaks age on the wall clock: `elapsed` may jump (a seek in play).
            let marks = hold.update(peaks: levels.peak, at: MonotonicClock.seconds() - started)
            let columns = display.columns
            if columns != frame.columns || levels.peak.count != frame.channels.count {
                frame = Frame(columns: columns, channels: Array(repeating: nil, count: levels.peak.count))
            }
            let line = MeterLine(columns: columns, usesColor: TerminalDisplay.allowsColor)
            for channel in levels.peak.indices {
                let shown = line.shown(peak: levels.peak[channel], average: levels.average[channel], hold: marks[channel])
                guard frame.channels[channel]?.shown != shown else { continue }
                let text = line.channel(MeterLine.label(channel: channel, of: levels.peak.count), shown)
                // Without a bar there are no colors, and the text alone may be too wide for a tiny terminal.
                frame.channels[channel] = (shown, line.layout == .peakOnly ? text.truncated(toColumns: columns) : text)
            }
            let status = status()
            if frame.status?.line != status { frame.status = (status, status.fitted(toColumns: columns)) }
            // The last column stays free, as the other lines leave it.
            let above = timeline(columns - 1).map { [$0] } ?? []
            let below = footer.map { [$0(columns - 1)] } ?? []
            display.draw(frame.channels.compactMap(\.?.text) + above + [frame.status!.text] + below, columns: columns)
        case .plain:
            print(MeterLine.plain(elapsed: elapsed, levels: levels, bytes: bytes))
            CurrentProcess.flushOutput()
        case .json:
            print(try MemoJSON.line(MeterJSON(time: elapsed, peak: levels.peak, average: levels.average)))
            CurrentProcess.flushOutput()
        case .hidden:
            break
        }
    }

    /// `levels`, or, when they are silence that comes within ``quietGrace`` of sound, the sound's: a reading
    /// between two device periods finds nothing new, which the meter would show as silence, the bars dropping
    /// to nothing and back with every period.
    private func withoutFlicker(_ levels: AudioLevels) -> AudioLevels {
        let now = MonotonicClock.seconds()
        if levels.peak.contains(where: { $0 > AudioLevels.floor }) {
            lastSound = (levels, now)
            return levels
        }
        guard let lastSound, lastSound.levels.peak.count == levels.peak.count,
            now - lastSound.at < Self.quietGrace
        else { return levels }
        return lastSound.levels
    }

    /// The terminal's lines as last made, and what they show.
    private struct Frame {
        /// The width they were made for.
        var columns = 0
        var channels: [(shown: MeterLine.Shown, text: String)?] = []
        var status: (line: StatusLine, text: String)?
    }

    /// Puts the terminal back, leaving the last reading on it.
    func finish() {
        if case .terminal(let display) = style { display.finish() }
    }
}
