import AudioIO
import Foundation

/// One channel's level as a bar with a peak-hold mark: `██████▌·······│··  -12.3`.
struct LevelBar {
    /// The lowest level the bar shows, in dBFS; quieter is an empty bar.
    static let floor = -60.0

    let width: Int

    /// The bar for `average` with a mark at `peakHold` (dBFS), followed by the peak in dB.
    func render(average: Double, peak: Double, peakHold: Double, in terminal: Terminal) -> String {
        let filled = cells(average)
        let mark = min(cells(peakHold), width - 1)
        var bar = ""
        for cell in 0..<width {
            if cell < filled {
                bar += "█"
            } else if cell == mark, peakHold > Self.floor {
                bar += "│"
            } else {
                bar += "·"
            }
        }
        let color = peak > -1 ? 31 : peak > -12 ? 33 : 32
        let number = peak <= AudioLevels.floor ? "  -inf" : String(format: "%6.1f", peak)
        return terminal.colored(bar, color) + " " + number
    }

    private func cells(_ level: Double) -> Int {
        guard level > Self.floor else { return 0 }
        return Int((level - Self.floor) / -Self.floor * Double(width))
    }
}
