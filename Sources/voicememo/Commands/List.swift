import ArgumentParser
import AudioIO
import FoundationEssentials
import MemoStore
import SystemPackage

extension VoiceMemo {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the memos, newest first.",
            discussion: """
                Shows each memo's id, title, creation date (local time), duration, format and size; a memo \
                whose recording is under way or was cut short says so at the end of its line. Long titles \
                are cut with "…".
                """)

        /// The most columns a title takes in the table.
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

        /// Prints the table of `memos`, each run formatted and laid out on a core of its own.
        private static func printTable(_ memos: [Memo], showingLoudness: Bool) async throws {
            let parts = await runs(of: memos).concurrentMap { table(of: $0, showingLoudness: showingLoudness) }
            let widths = parts.dropFirst().reduce(parts[0].widths) { zip($0, $1.widths).map(max) }
            let lines = await parts.indices.concurrentMap { parts[$0].lines(widths: widths, withHeadings: $0 == 0) }
            for part in lines { try write(part) }
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

        private static func table(of memos: ArraySlice<Memo>, showingLoudness: Bool) -> Table {
            var table = Table(columns: [
                Table.Column(heading: "ID"),
                Table.Column(heading: "TITLE", maximumWidth: titleColumns),
                Table.Column(heading: "CREATED"),
                Table.Column(heading: "DURATION", alignsRight: true),
                Table.Column(heading: "FORMAT"),
                Table.Column(heading: "SIZE", alignsRight: true),
            ] + (showingLoudness ? [Table.Column(heading: "LUFS", alignsRight: true)] : []) + [Table.Column(heading: "")])
            table.reserveCapacity(rows: memos.count, bytesPerRow: 100)
            // Most memos of a store share their format with the one before: it is described once per run of them.
            var last: (format: (AudioFileFormat, Double, Int), text: String)?
            func format(of memo: Memo) -> String {
                let format = (memo.format, memo.sampleRate, memo.channels)
                if let last, last.format == format { return last.text }
                last = (format, Describe.format(memo.format, sampleRate: memo.sampleRate, channels: memo.channels))
                return last?.text ?? ""
            }
            for memo in memos {
                table.append([
                    memo.id, memo.title, Describe.date(memo.createdAt), Describe.duration(memo.duration), format(of: memo),
                    Describe.size(memo.sizeBytes),
                ] + (showingLoudness ? [memo.loudness.map { Describe.level($0.integrated) } ?? "–"] : [])
                    + [memo.state == .complete ? "" : memo.state.rawValue])
            }
            return table
        }
    }
}

extension MemoOrder: ExpressibleByArgument {}
