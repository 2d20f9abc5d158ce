import ArgumentParser
import FoundationEssentials
import MemoStore

extension VoiceMemo {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the memos, newest first.",
            discussion: """
                Shows each memo's id, title, creation date (local time), duration, format and size; a memo \
                whose recording is under way or was cut short says so at the end of its line. Long titles \
                are cut with "…".
                """)

        /// The most columns a title takes in the table.
        static let titleColumns = 40

        @Option(help: ArgumentHelp("The order: date (newest first), title (A to Z) or duration (longest first).", valueName: "order"))
        var sort: MemoOrder = .date

        @Flag(help: "Print the memos as one JSON array.")
        var json = false

        func run() async throws {
            let store = try MemoStore(directory: MemoStore.defaultDirectory())
            let memos = try store.memos().sorted(by: sort)
            if json {
                print(try MemoJSON.line(memos.map { MemoJSON($0, in: store) }))
            } else if memos.isEmpty {
                print("No memos yet. Add one with: voicememo import FILE")
            } else {
                print(await Self.table(memos).text)
            }
        }

        /// The table of `memos`, formatted on every core in runs of at least 1,000: a store of 10,000 memos is
        /// 70,000 cells, most of `list`'s own time.
        static func table(_ memos: [Memo]) async -> Table {
            let runs = max(1, min(ProcessInfo.processInfo.activeProcessorCount, memos.count / 1000))
            let parts = await withTaskGroup(of: (Int, Table).self) { group -> [Table] in
                for run in 0..<runs {
                    let part = memos[(memos.count * run / runs)..<(memos.count * (run + 1) / runs)]
                    group.addTask { (run, table(of: part)) }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
            }
            var whole = parts[0]
            for part in parts.dropFirst() { whole.appendRows(of: part) }
            return whole
        }

        private static func table(of memos: ArraySlice<Memo>) -> Table {
            var table = Table(columns: [
                Table.Column(heading: "ID"),
                Table.Column(heading: "TITLE", maximumWidth: titleColumns),
                Table.Column(heading: "CREATED"),
                Table.Column(heading: "DURATION", alignsRight: true),
                Table.Column(heading: "FORMAT"),
                Table.Column(heading: "SIZE", alignsRight: true),
                Table.Column(heading: ""),
            ])
            for memo in memos {
                table.append([
                    memo.id, memo.title, Describe.date(memo.createdAt), Describe.duration(memo.duration),
                    Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels),
                    Describe.size(memo.sizeBytes), memo.state == .complete ? "" : memo.state.rawValue,
                ])
            }
            return table
        }
    }
}

extension MemoOrder: ExpressibleByArgument {}
