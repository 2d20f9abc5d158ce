/// Rows of text in aligned columns for the terminal, measured in display columns (see
/// ``Swift/String/terminalColumns``), two spaces apart, without trailing spaces.
struct Table {
    /// One column: its heading and how its cells line up.
    struct Column {
        let heading: String
        var alignsRight = false
        /// The most columns a cell may take; longer cells are cut with "…".
        var maximumWidth = Int.max
    }

    let columns: [Column]
    var rows: [[String]] = []

    /// The heading line and one line per row, joined by newlines; each cell on one line, cut to its column's
    /// maximum width.
    var text: String {
        // Cells in one flat array and lines in one byte buffer: `list` lays out 10,000 rows of seven cells.
        var cells: [(text: String, columns: Int)] = []
        cells.reserveCapacity((rows.count + 1) * columns.count)
        var widths = [Int](repeating: 0, count: columns.count)
        for row in [columns.map(\.heading)] + rows {
            for (index, column) in columns.enumerated() {
                let cell = index < row.count ? row[index].singleLine.fitted(toColumns: column.maximumWidth) : (text: "", columns: 0)
                widths[index] = max(widths[index], cell.columns)
                cells.append(cell)
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((rows.count + 1) * (widths.reduce(0, +) + 2 * columns.count + 1))
        for (number, cell) in cells.enumerated() {
            let index = number % columns.count
            if index == 0, number > 0 {
                while bytes.last == UInt8(ascii: " ") { bytes.removeLast() }
                bytes.append(UInt8(ascii: "\n"))
            }
            if index > 0 { bytes.append(contentsOf: "  ".utf8) }
            let padding = repeatElement(UInt8(ascii: " "), count: widths[index] - cell.columns)
            if columns[index].alignsRight { bytes.append(contentsOf: padding) }
            bytes.append(contentsOf: cell.text.utf8)
            if !columns[index].alignsRight { bytes.append(contentsOf: padding) }
        }
        while bytes.last == UInt8(ascii: " ") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
