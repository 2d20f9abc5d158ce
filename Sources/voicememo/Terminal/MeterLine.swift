import AudioIO

/// The text of a level meter: per channel a bar with its peak and average in dBFS and a peak-hold mark,
/// then a line with the elapsed time and the file size.
///
/// The bar spans ``floor`` … 0 dBFS: solid up to the average, shaded up to the peak, a `|` at the held
/// peak. With color, the bar is green below −18 dBFS, yellow up to −6 and red above, as on a PPM.
struct MeterLine {
    /// The lowest level the bar shows, in dBFS; quieter is an empty bar.
    static let floor = -60.0

    /// Cells of the bar.
    var barWidth: Int
    /// Whether to color the bar with ANSI escapes (not when `NO_COLOR` is set or output is plain).
    var usesColor: Bool

    /// The bar line of one channel, e.g. `L ██████▒▒··|····  -6.0 peak  -9.0 avg dBFS`.
    func channel(_ label: String, peak: Double, average: Double, hold: Double) -> String {
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
        return "\(label) \(bar) \(Self.number(peak)) peak \(Self.number(average)) avg dBFS"
    }

    /// The line under the bars, e.g. `● REC  Standup  0:03.2  96 KB`.
    static func status(_ prefix: String, elapsed: Double, bytes: Int64?) -> String {
        ([prefix, Describe.duration(elapsed)] + (bytes.map { [Describe.size($0)] } ?? [])).joined(separator: "  ")
    }

    /// The line under the bars while memos play, e.g. `▶ Standup  0:03.2 / 1:05.0  ×1.25` (`⏸` when
    /// paused; the speed only when it is not 1).
    static func playback(_ title: String, isPlaying: Bool, position: Double, duration: Double, rate: Float) -> String {
        var line = "\(isPlaying ? "▶" : "⏸") \(title)  \(Describe.duration(position)) / \(Describe.duration(duration))"
        if rate != 1 { line += "  ×" + Describe.number(Double(rate), "%.2f") }
        return line
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
        let text = Describe.level(level)
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
