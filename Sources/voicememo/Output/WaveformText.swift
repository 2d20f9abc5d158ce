import AudioIO

/// A memo's waveform as text, one column per character cell: each column as tall as the loudest sample of the stretch
/// of the memo it covers, on a decibel scale that spans ``range`` dB below the memo's loudest column (so that a quiet
/// memo shows its shape, and silence stays blank). Drawn with Unicode's eighth blocks (`▁▂▃▄▅▆▇█`), or with `.:|`
/// for a terminal without Unicode.
struct WaveformText {
    /// Decibels between the loudest column and a blank one.
    static let range = 30.0

    /// Per column, 0 (blank) … 1 (full height).
    let heights: [Double]
    /// Columns after ``heights`` whose audio is not known yet (an address not downloaded that far), drawn as `·`.
    let unknownCount: Int

    /// The columns of `waveform` over `columns` cells (at least 1); or, when `waveform` is of the first `known` part
    /// (0…1) of the audio only, over that part of the cells, the others unknown.
    init(_ waveform: Waveform, columns: Int, known: Double = 1) {
        let total = max(columns, 1)
        let columns = min(max(Int(Double(total) * known), 0), total)
        unknownCount = total - columns
        let length = waveform.length
        let peaks = (0..<columns).map { column -> Double in
            guard length > 0 else { return 0 }
            let first = column * length / columns
            return waveform.peak(ofPixels: first..<max(first + 1, (column + 1) * length / columns))
        }
        let loudest = AudioLevels.decibels(peaks.max() ?? 0)
        heights = peaks.map { peak in
            guard peak > 0, loudest > AudioLevels.floor else { return 0 }
            return min(max((AudioLevels.decibels(peak) - loudest + Self.range) / Self.range, 0), 1)
        }
    }

    private static let blocks: [Character] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    private static let asciiSteps: [Character] = [" ", ".", ":", "|"]

    /// `count` rows, the top one first: the columns grow from the bottom row up.
    func rows(_ count: Int, ascii: Bool) -> [String] {
        let steps = ascii ? Self.asciiSteps : Self.blocks
        let perRow = steps.count - 1
        let levels = heights.map { Int(($0 * Double(perRow * count)).rounded()) }
        return (0..<count).reversed().map { row in
            String(levels.map { steps[min(max($0 - row * perRow, 0), perRow)] })
        }
    }

    /// The line under a drawing `columns` wide of a memo of `duration` seconds: its start on the left, its end on the
    /// right, e.g. `0:00.0 … 1:05.0`.
    static func timeScale(duration: Double, columns: Int) -> String {
        let start = Describe.duration(0)
        let end = Describe.duration(duration)
        return start + String(repeating: " ", count: max(columns - start.count - end.count, 1)) + end
    }

    /// The column of `fraction` (0…1) of the memo: where the play head is drawn.
    func column(at fraction: Double) -> Int {
        let count = heights.count + unknownCount
        return min(max(Int(fraction * Double(count)), 0), count - 1)
    }

    /// One row with the play head, `│`, in column `head` (see ``column(at:)``); with `color`, what has played is drawn
    /// bright and what is to come dim.
    func row(playHeadIn head: Int, color: Bool) -> String {
        let cells = rows(1, ascii: false)[0] + String(repeating: "·", count: unknownCount)
        var line = ""
        for (index, cell) in cells.enumerated() {
            if index == head {
                line += color ? "\u{1B}[0m\u{1B}[1m│\u{1B}[0m\u{1B}[2m" : "│"
            } else {
                line.append(cell)
            }
        }
        return color ? line + "\u{1B}[0m" : line
    }
}
