/// The line under a live display's bars, e.g. `● REC  Standup  0:03.2  96 KB`: a head that says what runs, the
/// title, then fields, the first of which (the time) matters most. It shortens to fit a narrow terminal.
struct StatusLine: Equatable {
    /// What runs, with the space that parts it from the title, e.g. `● REC  ` or `▶ `.
    var head: String
    /// The memo's title, or the device's name: shortened (with "…") before a field goes.
    var title: String
    /// The time, then what may go when the line is narrow (a size, a speed).
    var fields: [String]

    /// The whole line.
    var text: String { head + title + fields.map { "  " + $0 }.joined() }

    /// The line in at most `columns` columns: the last fields go while the title would get fewer than
    /// ``shortestTitle`` columns, then the title is shortened, and gives way to the time when not even that fits.
    func fitted(toColumns columns: Int) -> String {
        var fields = fields
        let titleColumns = title.terminalColumns
        let headColumns = head.terminalColumns
        while true {
            let tail = fields.map { "  " + $0 }.joined()
            let tailColumns = tail.terminalColumns
            let room = columns - headColumns - tailColumns
            if room >= min(titleColumns, Self.shortestTitle) || fields.isEmpty {
                let title = title.fitted(toColumns: max(room, 0))
                let line = head + title.text + tail
                // Cut again only when not even the head and the time fit: measuring the whole line again costs.
                return headColumns + title.columns + tailColumns <= columns ? line : line.truncated(toColumns: columns)
            }
            if fields.count > 1 {
                fields.removeLast()
            } else {
                return (head + fields[0]).truncated(toColumns: columns)
            }
        }
    }

    /// The fewest columns a shortened title keeps: a hint of which memo it is.
    static let shortestTitle = 5
}
