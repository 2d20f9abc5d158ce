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
        let cells = ([columns.map(\.heading)] + rows).map { row in
            zip(row, columns).map { cell, column in cell.singleLine.fitted(toColumns: column.maximumWidth) }
        }
        let widths = columns.indices.map { index in cells.map { $0[index].columns }.max() ?? 0 }
        // One string grown in place: `list` writes 10,000 rows of seven cells.
        var text = ""
        text.reserveCapacity(cells.count * (widths.reduce(0, +) + 2 * columns.count + 1))
        for (number, row) in cells.enumerated() {
            if number > 0 { text += "\n" }
            let lineStart = text.utf8.count
            for (index, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[index] - cell.columns)
                if index > 0 { text += "  " }
                if columns[index].alignsRight { text += padding }
                text += cell.text
                if !columns[index].alignsRight { text += padding }
            }
            while text.utf8.count > lineStart, text.utf8.last == UInt8(ascii: " ") { text.removeLast() }
        }
        return text
    }
}
