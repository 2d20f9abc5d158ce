/// The line a command ends with, e.g. `Recorded “Standup” as 3eafb428dca6: 0:03.2, wav 48 kHz mono, 96 KB, peak
/// -2.2 dBFS`: a head with a title in it, then fields apart by commas (or ``separator``). On a terminal it fits the
/// width: the title
/// shortens (with "…") first, down to ``shortestTitle`` columns; then the fields go on to lines of their own,
/// indented, as many a line as fit.
struct SummaryLine {
    /// What comes before the title, e.g. `Recorded “`.
    var head: String
    var title: String
    /// What comes after the title and before the fields, e.g. `” as 3eafb428dca6: `.
    var middle: String
    var fields: [String]
    /// What parts the fields: `, `, or `; ` between clauses.
    var separator = ", "

    /// The whole line.
    var text: String { head + title + middle + fields.joined(separator: separator) }

    /// The lines to print on a terminal `columns` wide (nil: not a terminal, the whole line).
    func lines(fittingColumns columns: Int?) -> [String] {
        let whole = text
        guard let columns, whole.terminalColumns > columns else { return [whole] }
        let fieldColumns = fields.joined(separator: separator).terminalColumns
        let room = columns - head.terminalColumns - middle.terminalColumns - fieldColumns
        if room >= min(title.terminalColumns, Self.shortestTitle) {
            return [head + title.truncated(toColumns: room) + middle + fields.joined(separator: separator)]
        }
        // The title as short as it goes, and the fields after it, on as many lines as they take.
        var lines: [String] = []
        var line = (head + title.truncated(toColumns: Self.shortestTitle) + middle).truncated(toColumns: columns)
        var lineHasFields = false
        for field in fields {
            let longer = line + (lineHasFields ? separator : "") + field
            if longer.terminalColumns <= columns {
                line = longer
            } else {
                lines.append(line + (lineHasFields ? String(separator.prefix(1)) : ""))
                line = ("  " + field).truncated(toColumns: columns)
            }
            lineHasFields = true
        }
        return lines + [line]
    }

    /// The fewest columns a shortened title keeps: a hint of which memo it is.
    static let shortestTitle = 16
}
