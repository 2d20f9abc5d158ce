import AudioIO

/// The text of a level meter: per channel a bar with its peak and average in dBFS and a peak-hold mark,
/// then a line with the elapsed time and the file size (``StatusLine``), as much of it as the terminal's width holds.
///
/// The bar spans ``floor`` … 0 dBFS: solid up to the average, shaded up to the peak, a `|` at the held
/// peak. With color, the bar is green below −18 dBFS, yellow up to −6 and red above, as on a PPM.
struct MeterLine {
    /// The lowest level the bar shows, in dBFS; quieter is an empty bar.
    static let floor = -60.0

    /// What a channel's line shows, by the room there is.
    enum Layout: Equatable {
        /// `L ████▒▒|··  -6.0 peak  -9.0 avg dBFS`
        case full
        /// `L ████▒▒|··  -6.0 pk  -9.0 av`
        case short
        /// `L ████▒▒|··   -6`: the peak in whole dB.
        case narrow
        /// `L   -6`: no room for a bar.
        case peakOnly
    }

    /// Cells of the bar.
    var barWidth: Int
    /// Whether to color the bar with ANSI escapes (not when `NO_COLOR` is set or output is plain).
    var usesColor: Bool
    var layout: Layout

    init(barWidth: Int, usesColor: Bool, layout: Layout = .full) {
        self.barWidth = barWidth
        self.usesColor = usesColor
        self.layout = layout
    }

    /// The line that fits a terminal `columns` wide, leaving its last column free: the whole text and a bar of
    /// at least 10 cells, else shorter words, else the peak alone in whole dB, else no bar.
    init(columns: Int, usesColor: Bool) {
        switch columns {
        case 42...: self.init(barWidth: columns - 32, usesColor: usesColor, layout: .full)
        case 30..<42: self.init(barWidth: columns - 24, usesColor: usesColor, layout: .short)
        case 12..<30: self.init(barWidth: columns - 9, usesColor: usesColor, layout: .narrow)
        default: self.init(barWidth: 0, usesColor: usesColor, layout: .peakOnly)
        }
    }

    /// The bar line of one channel, e.g. `L ██████▒▒··|····  -6.0 peak  -9.0 avg dBFS` (see ``Layout``).
    func channel(_ label: String, peak: Double, average: Double, hold: Double) -> String {
        channel(label, shown(peak: peak, average: average, hold: hold))
    }

    /// What a channel's line shows of its levels: the bar's cells and the numbers as written. Levels that show the same
    /// make the same line, which a redraw then need not make again.
    struct Shown: Equatable {
        var averageCells: Int
        var peakCells: Int
        /// The held peak's cell, nil while the hold is at the floor.
        var holdCell: Int?
        var peakTenths: Int
        var averageTenths: Int
        var peakWhole: Int
    }

    /// What the line of `peak`, `average` and `hold` (dBFS) shows.
    func shown(peak: Double, average: Double, hold: Double) -> Shown {
        let averageCells = cells(average)
        return Shown(
            averageCells: averageCells, peakCells: max(cells(peak), averageCells),
            holdCell: hold > Self.floor ? min(cells(hold), barWidth - 1) : nil, peakTenths: Self.tenths(peak),
            averageTenths: Self.tenths(average), peakWhole: Int(peak.rounded()))
    }

    /// The bar line of one channel that shows `shown`.
    func channel(_ label: String, _ shown: Shown) -> String {
        switch layout {
        case .full: "\(label) \(bar(shown)) \(Self.number(shown.peakTenths)) peak \(Self.number(shown.averageTenths)) avg dBFS"
        case .short: "\(label) \(bar(shown)) \(Self.number(shown.peakTenths)) pk \(Self.number(shown.averageTenths)) av"
        case .narrow: "\(label) \(bar(shown)) \(Self.wholeNumber(shown.peakWhole))"
        case .peakOnly: "\(label) \(Self.wholeNumber(shown.peakWhole))"
        }
    }

    /// ``barWidth`` cells over ``floor`` … 0 dBFS, put together as bytes: a String appended to cell by cell cost more
    /// than the rest of a redraw.
    private func bar(_ shown: Shown) -> String {
        var bar: [UInt8] = []
        bar.reserveCapacity(barWidth * (usesColor ? 12 : 3) + 4)
        var color: Zone?
        for cell in 0..<barWidth {
            let symbol: Symbol = cell == shown.holdCell ? .hold : cell < shown.averageCells ? .average : cell < shown.peakCells ? .peak : .empty
            if usesColor {
                let wanted = symbol == .empty ? Zone.dim : zone(cell)
                if wanted != color {
                    bar.append(Zone.reset)
                    bar.append(wanted.escape)
                    color = wanted
                }
            }
            bar.append(symbol.bytes)
        }
        if usesColor { bar.append(Zone.reset) }
        return String(decoding: bar, as: UTF8.self)
    }

    /// What a cell of the bar shows.
    private enum Symbol {
        case hold, average, peak, empty

        var bytes: StaticString {
            switch self {
            case .hold: "|"
            case .average: "█"
            case .peak: "▒"
            case .empty: "·"
            }
        }
    }

    /// A cell's color: by its level, or dim when empty.
    private enum Zone {
        case green, yellow, red, dim

        var escape: StaticString {
            switch self {
            case .green: "\u{1B}[32m"
            case .yellow: "\u{1B}[33m"
            case .red: "\u{1B}[31m"
            case .dim: "\u{1B}[2m"
            }
        }

        static let reset: StaticString = "\u{1B}[0m"
    }

    /// The line under the bars, e.g. `● REC  Standup  0:03.2  96 KB` (`head` is `● REC  `), and a `note` after them
    /// (`silent: input muted?`), the first to go on a narrow terminal.
    static func status(_ head: String, title: String, elapsed: Double, bytes: Int64?, note: String? = nil) -> StatusLine {
        StatusLine(
            head: head, title: title,
            fields: [Describe.duration(elapsed)] + (bytes.map { [Describe.size($0)] } ?? []) + (note.map { [$0] } ?? []))
    }

    /// The head of `record`'s and `play`'s status line while another program holds the device they wait for.
    static let waitingForDevice = "⏳ WAITING FOR THE DEVICE  "

    /// The line under the bars while memos play, e.g.
    /// `▶ Standup  0:03.2 / 1:05.0  2/3  sleep 14:59  ×1.25  vol 70%  0:12.4 saved` (`⏸` when paused): the memo's place
    /// among those played in turn, the sleep timer's time left, the speed, the volume and the memo's time left out while
    /// silence is skipped, when there are such, in the order a narrow terminal keeps them;
    /// `… talk.wav  0:12.0 / 0:30.0  buffering` while an address's playback waits for its download;
    /// `⏳ WAITING FOR THE DEVICE  Standup  0:00.0 / 1:05.0` while another program holds the device (`waitsForDevice`).
    static func playback(
        _ title: String, isPlaying: Bool, position: Double, duration: Double, rate: Float, volume: Float = 1,
        place: (number: Int, count: Int)? = nil, sleep: Double? = nil, isBuffering: Bool = false, silenceSkipped: Double? = nil,
        waitsForDevice: Bool = false
    ) -> StatusLine {
        var fields = ["\(Describe.duration(position)) / \(Describe.duration(duration))"]
        if isBuffering { fields.append("buffering") }
        if let place { fields.append("\(place.number)/\(place.count)") }
        if let sleep { fields.append("sleep " + Describe.countdown(sleep)) }
        if rate != 1 { fields.append("×" + Describe.number(Double(rate), "%.2f")) }
        if volume != 1 { fields.append("vol \(Int((volume * 100).rounded()))%") }
        if let silenceSkipped { fields.append(Describe.duration(silenceSkipped) + " saved") }
        let head = waitsForDevice ? waitingForDevice : isBuffering && isPlaying ? "… " : isPlaying ? "▶ " : "⏸ "
        return StatusLine(head: head, title: title, fields: fields)
    }

    /// One plain line for a pipe or a log, e.g. `0:03.2  peak -6.0, -6.1 dBFS  average -9.0, -9.1 dBFS  96 KB`.
    static func plain(elapsed: Double, levels: AudioLevels, bytes: Int64?) -> String {
        var line = "\(Describe.duration(elapsed))  peak \(Describe.levels(levels.peak))  average \(Describe.levels(levels.average))"
        if let bytes { line += "  " + Describe.size(bytes) }
        return line
    }

    /// The label of `channel` (0-based) of `count`: L and R for stereo, M for mono, numbers beyond.
    static func label(channel: Int, of count: Int) -> String {
        switch count {
        case 1: "M"
        case 2: channel == 0 ? "L" : "R"
        default: String(channel + 1)
        }
    }

    /// Cells of the bar at or below `level`.
    private func cells(_ level: Double) -> Int {
        let fraction = (min(max(level, Self.floor), 0) - Self.floor) / -Self.floor
        return Int((fraction * Double(barWidth)).rounded(.down))
    }

    /// The color of `cell`, by the level at its middle.
    private func zone(_ cell: Int) -> Zone {
        let level = Self.floor + (Double(cell) + 0.5) / Double(barWidth) * -Self.floor
        return level < -18 ? .green : level < -6 ? .yellow : .red
    }

    /// `level` in tenths of a dB, as ``Describe/level(_:)`` rounds it.
    private static func tenths(_ level: Double) -> Int { Int((level * 10).rounded()) }

    /// A level given in tenths, in a fixed width of 6, e.g. `  -6.0`, or `  -inf` for silence: as
    /// ``Describe/level(_:)`` writes it, from whole numbers (printf through a `CVarArg` list cost more than the rest of
    /// a meter line).
    private static func number(_ tenths: Int) -> String {
        guard tenths > Int(AudioLevels.floor) * 10 else { return padded(Describe.silence, to: 6) }
        return padded((tenths < 0 ? "-" : "") + "\(tenths.magnitude / 10).\(tenths.magnitude % 10)", to: 6)
    }

    /// A level in whole dB in a fixed width of 4, e.g. `  -6`, or `-inf` for silence.
    private static func wholeNumber(_ whole: Int) -> String {
        padded(whole > Int(AudioLevels.floor) ? String(whole) : Describe.silence, to: 4)
    }

    private static func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}

extension [UInt8] {
    /// Appends the UTF-8 bytes of `text`.
    fileprivate mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }
}
