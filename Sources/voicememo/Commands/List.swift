import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemEdge
import SystemPackage

extension VoiceMemo {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the memos, newest first.",
            discussion: """
                Shows each memo's id, title, creation date (local time), duration, format and size; a memo \
                whose recording is under way or was cut short says so at the end of its line. On a terminal the \
                table fits its width: a title longer than 40 columns is cut with "…", then the title shortens \
                further, then the format is written short, then the size, format, date and duration columns go, in \
                that order. In a pipe or a file every line is whole.
                """)

        /// The most columns a title takes in a table on a terminal.
        static let titleColumns = 40

        @Option(help: ArgumentHelp(
            "The order: date (newest first), title (A to Z), duration (longest first) or loudness (loudest first, with a LUFS column).",
            valueName: "order"))
        var sort: MemoOrder = .date

        @Flag(help: "Print the memos as one JSON array.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            var memos = try store.memos()
            // Memos of an older store have their loudness measured once, when it is first shown or sorted by.
            if json || sort == .loudness { memos = store.measuringLoudness(of: memos) }
            memos = memos.sorted(by: sort)
            if json {
                try await Self.printJSON(memos, in: store)
            } else if memos.isEmpty {
                print("No memos yet. Add one with: voicememo import FILE")
            } else {
                try await Self.printTable(memos, showingLoudness: sort == .loudness)
            }
        }

        /// `memos` in runs of at least 1,000, one per core: a store of 10,000 memos is 70,000 cells of a table, or
        /// 10,000 objects for JSONEncoder, most of `list`'s own time.
        private static func runs(of memos: [Memo]) -> [ArraySlice<Memo>] {
            let count = max(1, min(ProcessInfo.processInfo.activeProcessorCount, memos.count / 1000))
            return (0..<count).map { run in memos[(memos.count * run / count)..<(memos.count * (run + 1) / count)] }
        }

        /// Prints the table of `memos`, each run formatted and laid out on a core of its own: whole, or, on a terminal
        /// it would not fit, laid out again to fit its width (``ListLayout``).
        private static func printTable(_ memos: [Memo], showingLoudness: Bool) async throws {
            var layout = ListLayout.whole(showingLoudness: showingLoudness)
            var parts = await tables(of: memos, layout)
            if Terminal(.standardOutput) != nil, let columns = TerminalDisplay.outputColumns {
                let widths = Dictionary(uniqueKeysWithValues: zip(layout.columns, widths(of: parts)))
                let shortFormats = Set(memos.map { Describe.shortFormat($0.format, sampleRate: $0.sampleRate, channels: $0.channels) })
                var onTerminal = layout
                onTerminal.titleColumns = titleColumns
                let fitted = onTerminal.fitted(
                    toColumns: columns, widths: widths, shortFormatWidth: shortFormats.map(\.terminalColumns).max() ?? 0)
                if fitted != layout {
                    layout = fitted
                    parts = await tables(of: memos, layout)
                }
            }
            let widths = widths(of: parts)
            let tables = parts
            let lines = await tables.indices.concurrentMap { tables[$0].lines(widths: widths, withHeadings: $0 == 0) }
            for part in lines { try write(part) }
        }

        /// The tables of `memos` in `layout`, a run each (see ``runs(of:)``).
        private static func tables(of memos: [Memo], _ layout: ListLayout) async -> [Table] {
            await runs(of: memos).concurrentMap { table(of: $0, layout) }
        }

        /// The columns each column of the tables' widest cell takes.
        private static func widths(of parts: [Table]) -> [Int] {
            parts.dropFirst().reduce(parts[0].widths) { zip($0, $1.widths).map(max) }
        }

        /// Prints `memos` as one JSON array on one line: each run encoded on a core of its own, the arrays joined.
        private static func printJSON(_ memos: [Memo], in store: MemoStore) async throws {
            let arrays = try await runs(of: memos).concurrentMap { run in
                Result { try MemoJSON.encoded(run.map { MemoJSON($0, in: store) }) }
            }.map { try $0.get() }
            var joined = [UInt8(ascii: "[")]
            // JSONEncoder writes an array as "[", the elements between commas, and "]", with nothing around them.
            for array in arrays where array.count > 2 {
                if joined.count > 1 { joined.append(UInt8(ascii: ",")) }
                joined.append(contentsOf: array.dropFirst().dropLast())
            }
            joined.append(contentsOf: "]\n".utf8)
            try write(joined)
        }

        /// Writes `bytes` to stdout, or says why it could not (a full disk, a closed descriptor).
        private static func write(_ bytes: [UInt8]) throws {
            do {
                _ = try FileDescriptor.standardOutput.writeAll(bytes)
            } catch Errno.brokenPipe {
                // The reader has gone (`list | head`): it has what it wanted.
            } catch {
                throw OutputFailure(reason: error)
            }
        }

        private struct OutputFailure: Error, CustomStringConvertible {
            let reason: any Error
            var description: String { "cannot write the list to standard output: \(reason)" }
        }

        private static func table(of memos: ArraySlice<Memo>, _ layout: ListLayout) -> Table {
            var table = Table(columns: layout.columns.map { column in
                switch column {
                case .id: Table.Column(heading: "ID")
                case .title: Table.Column(heading: "TITLE", maximumWidth: layout.titleColumns)
                case .created: Table.Column(heading: "CREATED")
                case .duration: Table.Column(heading: "DURATION", alignsRight: true)
                case .format: Table.Column(heading: "FORMAT")
                case .size: Table.Column(heading: "SIZE", alignsRight: true)
                case .loudness: Table.Column(heading: "LUFS", alignsRight: true)
                case .state: Table.Column(heading: "")
                }
            })
            table.reserveCapacity(rows: memos.count, bytesPerRow: 100)
            // Most memos of a store share their format with the one before: it is described once per run of them.
            var last: (format: (AudioFileFormat, Double, Int), text: String)?
            func format(of memo: Memo) -> String {
                let format = (memo.format, memo.sampleRate, memo.channels)
                if let last, last.format == format { return last.text }
                let text = layout.isFormatShort
                    ? Describe.shortFormat(memo.format, sampleRate: memo.sampleRate, channels: memo.channels)
                    : Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels)
                last = (format, text)
                return text
            }
            for memo in memos {
                table.append(layout.columns.map { column in
                    switch column {
                    case .id: memo.id
                    case .title: memo.title
                    case .created: Describe.date(memo.createdAt)
                    case .duration: Describe.duration(memo.duration)
                    case .format: format(of: memo)
                    case .size: Describe.size(memo.sizeBytes)
                    case .loudness: memo.loudness.map { Describe.level($0.integrated) } ?? "–"
                    case .state: memo.state == .complete ? "" : memo.state.rawValue
                    }
                })
            }
            return table
        }
    }
}

extension MemoOrder: ExpressibleByArgument {}
