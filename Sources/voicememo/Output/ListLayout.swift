/// Which columns `list`'s table shows, and how: whole off a terminal, fitted to its width on one, as `ls -l` and
/// `docker ps` are. To fit, the title is shortened (with "…") first, then the format is written short
/// (`wav 48k 2ch`), then the least useful columns go, one by one: the size, the format, the creation date, the
/// duration. The id, the title, the loudness (when sorted by it) and the state stay.
struct ListLayout: Equatable {
    enum Column: CaseIterable {
        case id, title, created, duration, format, size, loudness, state
    }

    var columns: [Column]
    /// The most columns a title takes.
    var titleColumns: Int
    /// Whether the format is written short.
    var isFormatShort = false

    /// The whole table, loudness shown or not, titles whole: as a pipe or a file gets it.
    static func whole(showingLoudness: Bool) -> ListLayout {
        ListLayout(columns: Column.allCases.filter { showingLoudness || $0 != .loudness }, titleColumns: .max)
    }

    /// The fewest columns a title is shortened to before the format shortens or a column goes.
    static let shortestTitle = 16
    /// The fewest columns a title keeps when the terminal leaves it less: a hint of which memo it is.
    static let hintOfTitle = 5
    /// The columns that go when the rest does not fit, the least useful first.
    static let dropOrder: [Column] = [.size, .format, .created, .duration]

    /// This layout fitted to `available` terminal columns, given the columns each of its columns' widest cell takes
    /// (`widths`, the title's not cut) and the widest short format (`shortFormatWidth`).
    func fitted(toColumns available: Int, widths: [Column: Int], shortFormatWidth: Int) -> ListLayout {
        let title = min(widths[.title] ?? 0, titleColumns)
        if width(without: .title, widths: widths, shortFormatWidth: shortFormatWidth) + title <= available { return self }
        var tries = [ListLayout(columns: columns, titleColumns: title)]
        tries.append(ListLayout(columns: columns, titleColumns: title, isFormatShort: true))
        for count in Self.dropOrder.indices {
            let dropped = Self.dropOrder.prefix(count + 1)
            tries.append(ListLayout(columns: columns.filter { !dropped.contains($0) }, titleColumns: title, isFormatShort: true))
        }
        for layout in tries {
            let room = available - layout.width(without: .title, widths: widths, shortFormatWidth: shortFormatWidth)
            if room >= min(title, Self.shortestTitle) { return layout.withTitle(columns: min(title, room)) }
        }
        let last = tries[tries.count - 1]
        let room = available - last.width(without: .title, widths: widths, shortFormatWidth: shortFormatWidth)
        return last.withTitle(columns: max(min(title, room), Self.hintOfTitle))
    }

    /// The columns a line takes, cells `widths` wide and two spaces apart, without `column`'s cells (but with the
    /// spaces around them): an empty last column takes nothing, as lines end without spaces.
    private func width(without left: Column, widths: [Column: Int], shortFormatWidth: Int) -> Int {
        let cells = columns.map { column in
            column == left ? 0 : column == .format && isFormatShort ? shortFormatWidth : widths[column] ?? 0
        }
        let spaces = 2 * (columns.count - 1) - (columns.last.map { $0 != left && (widths[$0] ?? 0) == 0 } == true ? 2 : 0)
        return cells.reduce(0, +) + spaces
    }

    private func withTitle(columns: Int) -> ListLayout {
        var layout = self
        layout.titleColumns = columns
        return layout
    }
}
