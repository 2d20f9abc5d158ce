import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemPackage

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
                await Self.printTable(memos)
            }
        }

        /// Prints the table of `memos`, formatted and laid out on every core in runs of at least 1,000: a store
        /// of 10,000 memos is 70,000 cells, most of `list`'s own time.
        static func printTable(_ memos: [Memo]) async {
            let runs = max(1, min(ProcessInfo.processInfo.activeProcessorCount, memos.count / 1000))
            let parts = await (0..<runs).concurrentMap { run in
                table(of: memos[(memos.count * run / runs)..<(memos.count * (run + 1) / runs)])
            }
            let widths = parts.dropFirst().reduce(parts[0].widths) { zip($0, $1.widths).map(max) }
            let lines = await parts.indices.concurrentMap { parts[$0].lines(widths: widths, withHeadings: $0 == 0) }
            for part in lines { _ = try? FileDescriptor.standardOutput.writeAll(part) }
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
            table.reserveCapacity(rows: memos.count, bytesPerRow: 100)
            // Most memos of a store share their format with the one before: it is described once per run of them.
            var format = (of: (AudioFileFormat.wav, 0.0, 0), text: "")
            for memo in memos {
                if format.of != (memo.format, memo.sampleRate, memo.channels) {
                    format = ((memo.format, memo.sampleRate, memo.channels), Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels))
                }
                table.append([
                    memo.id, memo.title, Describe.date(memo.createdAt), Describe.duration(memo.duration), format.text,
                    Describe.size(memo.sizeBytes), memo.state == .complete ? "" : memo.state.rawValue,
                ])
            }
            return table
        }
    }
}

extension MemoOrder: ExpressibleByArgument {}

private extension Collection where Self: Sendable, Index: Sendable {
    /// `transform` of each element, in order, each on a task of its own.
    func concurrentMap<T: Sendable>(_ transform: @escaping @Sendable (Element) -> T) async -> [T] where Element: Sendable {
        await withTaskGroup(of: (Index, T).self) { group in
            for index in indices {
                let element = self[index]
                group.addTask { (index, transform(element)) }
            }
            var results: [(Index, T)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}
