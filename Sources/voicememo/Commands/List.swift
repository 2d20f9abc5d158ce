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
                print(Self.table(memos).text)
            }
        }

        static func table(_ memos: [Memo]) -> Table {
            var table = Table(columns: [
                Table.Column(heading: "ID"),
                Table.Column(heading: "TITLE", maximumWidth: titleColumns),
                Table.Column(heading: "CREATED"),
                Table.Column(heading: "DURATION", alignsRight: true),
                Table.Column(heading: "FORMAT"),
                Table.Column(heading: "SIZE", alignsRight: true),
                Table.Column(heading: ""),
            ])
            table.rows = memos.map { memo in
                [memo.id, memo.title, Describe.date(memo.createdAt), Describe.duration(memo.duration),
                 Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels),
                 Describe.size(memo.sizeBytes), memo.state == .complete ? "" : memo.state.rawValue]
            }
            return table
        }
    }
}

extension MemoOrder: ExpressibleByArgument {}
