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

    /// The heading line and one line per row; each cell on one line, cut to its column's maximum width.
    var lines: [String] {
        let cells = ([columns.map(\.heading)] + rows).map { row in
            zip(row, columns).map { cell, column in
                let text = cell.singleLine.truncated(toColumns: column.maximumWidth)
                return (text: text, width: text.terminalColumns)
            }
        }
        let widths = columns.indices.map { index in cells.map { $0[index].width }.max() ?? 0 }
        return cells.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.width)
                if index > 0 { line += "  " }
                line += columns[index].alignsRight ? padding + cell.text : cell.text + padding
            }
            while line.utf8.last == UInt8(ascii: " ") { line.removeLast() }
            return line
        }
    }
}
