/// The line under `play`'s status for an address: the file's length as a bar, what was heard (`█`), what is downloaded
/// ahead or elsewhere (`▒`: a seek's range, an Ogg file's end) and what is not here yet (`·`), e.g.
/// `██████▒▒▒▒▒▒▒▒··················▒`. One pass over the cells and the ranges, for a redraw 20 times a second.
enum ProgressBar {
    /// The bar in `columns` cells for `position` seconds of `duration`, with `loaded` (sorted ranges of seconds).
    static func line(position: Double, duration: Double, loaded: [Range<Double>], columns: Int) -> String {
        guard columns > 0, duration > 0 else { return "" }
        var line = ""
        line.reserveCapacity(columns * 3)
        var range = loaded.startIndex
        for cell in 0..<columns {
            let start = Double(cell) / Double(columns) * duration
            let end = Double(cell + 1) / Double(columns) * duration
            if end <= position {
                line += "█"
                continue
            }
            // The ranges before this cell are behind: each is passed once over the whole line.
            while range < loaded.endIndex, loaded[range].upperBound < end { range += 1 }
            let here = range < loaded.endIndex && loaded[range].lowerBound <= start
            line += here ? "▒" : "·"
        }
        return line
    }
}
