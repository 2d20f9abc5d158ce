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
        switch layout {
        case .full: "\(label) \(bar(peak: peak, average: average, hold: hold)) \(Self.number(peak)) peak \(Self.number(average)) avg dBFS"
        case .short: "\(label) \(bar(peak: peak, average: average, hold: hold)) \(Self.number(peak)) pk \(Self.number(average)) av"
        case .narrow: "\(label) \(bar(peak: peak, average: average, hold: hold)) \(Self.wholeNumber(peak))"
        case .peakOnly: "\(label) \(Self.wholeNumber(peak))"
        }
    }

    /// ``barWidth`` cells over ``floor`` … 0 dBFS.
    private func bar(peak: Double, average: Double, hold: Double) -> String {
        let averageCells = cells(average)
        let peakCells = max(cells(peak), averageCells)
        let holdCell = min(cells(hold), barWidth - 1)
        var bar = ""
        var color = ""
        for cell in 0..<barWidth {
            let symbol = cell == holdCell && hold > Self.floor ? "|" : cell < averageCells ? "█" : cell < peakCells ? "▒" : "·"
            if usesColor {
                let wanted = symbol == "·" ? "\u{1B}[2m" : zoneColor(cell)
                if wanted != color {
                    bar += "\u{1B}[0m" + wanted
                    color = wanted
                }
            }
            bar += symbol
        }
        if usesColor { bar += "\u{1B}[0m" }
        return bar
    }

    /// The line under the bars, e.g. `● REC  Standup  0:03.2  96 KB` (`head` is `● REC  `).
    static func status(_ head: String, title: String, elapsed: Double, bytes: Int64?) -> StatusLine {
        StatusLine(head: head, title: title, fields: [Describe.duration(elapsed)] + (bytes.map { [Describe.size($0)] } ?? []))
    }

    /// The line under the bars while memos play, e.g. `▶ Standup  0:03.2 / 1:05.0  2/3  sleep 14:59  ×1.25  0:12.4 saved`
    /// (`⏸` when paused): the memo's place among those played in turn, the sleep timer's time left, the speed and the
    /// memo's time left out while silence is skipped, when there are such, in the order a narrow terminal keeps them;
    /// `… talk.wav  0:12.0 / 0:30.0  buffering` while an address's playback waits for its download.
    static func playback(
        _ title: String, isPlaying: Bool, position: Double, duration: Double, rate: Float,
        place: (number: Int, count: Int)? = nil, sleep: Double? = nil, isBuffering: Bool = false, silenceSkipped: Double? = nil
    ) -> StatusLine {
        var fields = ["\(Describe.duration(position)) / \(Describe.duration(duration))"]
        if isBuffering { fields.append("buffering") }
        if let place { fields.append("\(place.number)/\(place.count)") }
        if let sleep { fields.append("sleep " + Describe.countdown(sleep)) }
        if rate != 1 { fields.append("×" + Describe.number(Double(rate), "%.2f")) }
        if let silenceSkipped { fields.append(Describe.duration(silenceSkipped) + " saved") }
        return StatusLine(head: isBuffering && isPlaying ? "… " : isPlaying ? "▶ " : "⏸ ", title: title, fields: fields)
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
    private func zoneColor(_ cell: Int) -> String {
        let level = Self.floor + (Double(cell) + 0.5) / Double(barWidth) * -Self.floor
        return level < -18 ? "\u{1B}[32m" : level < -6 ? "\u{1B}[33m" : "\u{1B}[31m"
    }

    /// A level to a tenth in a fixed width of 6, e.g. `  -6.0`, `-160.0`.
    private static func number(_ level: Double) -> String {
        padded(Describe.level(level), to: 6)
    }

    /// A level in whole dB in a fixed width of 4, e.g. `  -6`, `-160`.
    private static func wholeNumber(_ level: Double) -> String {
        padded(Describe.number(level.rounded() + 0, "%.0f"), to: 4)
    }

    private static func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
