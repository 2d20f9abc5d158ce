/// Rows of text in aligned columns for the terminal, measured in display columns (see
/// ``Swift/String/terminalColumns``), two spaces apart, without trailing spaces.
///
/// Cells go into one byte buffer as they are added, fitted to their column; the lines are laid out in another.
/// `list` lays out 10,000 rows of seven cells, and strings per cell and per line were most of its time.
struct Table {
    /// One column: its heading and how its cells line up.
    struct Column {
        let heading: String
        var alignsRight = false
        /// The most columns a cell may take; longer cells are cut with "…".
        var maximumWidth = Int.max
    }

    let columns: [Column]
    /// Every cell so far, headings first, row after row: its UTF-8 on one line and fitted to its column, end to end.
    private var cellBytes: [UInt8] = []
    /// Where each cell of `cellBytes` ends, and the columns it takes on screen.
    private var cells: [(end: Int, columns: Int)] = []
    /// The columns each column's widest cell takes.
    private(set) var widths: [Int]

    /// A table with `columns`, its headings as the first line.
    init(columns: [Column]) {
        self.columns = columns
        widths = Array(repeating: 0, count: columns.count)
        append(columns.map(\.heading))
    }

    /// Makes room for `rows` more lines of cells of about `bytesPerRow` bytes, so that thousands of rows do not
    /// outgrow the buffers again and again.
    mutating func reserveCapacity(rows: Int, bytesPerRow: Int) {
        cells.reserveCapacity(cells.count + rows * columns.count)
        cellBytes.reserveCapacity(cellBytes.count + rows * bytesPerRow)
    }

    /// Adds a line of cells, one per column from the left (missing ones empty, extra ones dropped): each cell on one
    /// line, cut to its column's maximum width.
    mutating func append(_ row: [String]) {
        for column in columns.indices {
            let used = (column < row.count ? row[column] : "").appendFitted(toColumns: columns[column].maximumWidth, to: &cellBytes)
            cells.append((cellBytes.count, used))
            widths[column] = max(widths[column], used)
        }
    }

    /// The heading line and one line per row, joined by newlines.
    var text: String {
        String(decoding: lines(widths: widths, withHeadings: true).dropLast(), as: UTF8.self)
    }

    /// The lines of this table, each ending in a newline, in columns of `widths` (at least this table's own, as when
    /// it is printed in parts): the heading line if `withHeadings`, then one line per row.
    func lines(widths: [Int], withHeadings: Bool) -> [UInt8] {
        let firstCell = withHeadings ? 0 : columns.count
        let firstByte = withHeadings ? 0 : cells[columns.count - 1].end
        let lineCount = (cells.count - firstCell) / columns.count
        // Every cell's bytes, and at most its column's width in padding, two spaces between cells and a newline.
        let capacity = cellBytes.count - firstByte + lineCount * (widths.reduce(0, +) + 2 * columns.count + 1)
        return cellBytes.withUnsafeBufferPointer { text in
            [UInt8](unsafeUninitializedCapacity: capacity) { line, count in
                func put(_ byte: UInt8, times: Int) {
                    (line.baseAddress! + count).initialize(repeating: byte, count: times)
                    count += times
                }
                var start = firstByte
                for number in firstCell..<cells.count {
                    let (end, used) = cells[number]
                    let column = number % columns.count
                    if column > 0 { put(UInt8(ascii: " "), times: 2) }
                    let padding = widths[column] - used
                    if columns[column].alignsRight { put(UInt8(ascii: " "), times: padding) }
                    _ = UnsafeMutableBufferPointer(rebasing: line[count...]).initialize(fromContentsOf: text[start..<end])
                    count += end - start
                    if !columns[column].alignsRight { put(UInt8(ascii: " "), times: padding) }
                    start = end
                    if column == columns.count - 1 {
                        while count > 0, line[count - 1] == UInt8(ascii: " ") { count -= 1 }
                        put(UInt8(ascii: "\n"), times: 1)
                    }
                }
            }
        }
    }
}
