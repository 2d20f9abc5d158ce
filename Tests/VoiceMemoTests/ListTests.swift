import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct ListTests {
    @Test func anEmptyStoreSaysHowToAddAMemo() throws {
        let cli = try CLI()
        let result = try cli.run("list")
        #expect(result.status == 0 && result.standardError.isEmpty)
        #expect(result.standardOutput == "No memos yet. Add one with: voicememo import FILE\n")
        #expect(try cli.run("list", "--json").standardOutput == "[]\n")
        let mode = try FileManager.default.attributesOfItem(atPath: cli.home.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test func columnsLineUpWhateverTheTitlesAreMadeOf() throws {
        let cli = try CLI()
        // Each title with the cell it should get and the terminal columns that cell takes; in a pipe, whole.
        let titles: [(title: String, cell: String, columns: Int)] = [
            ("Meeting notes", "Meeting notes", 13),
            ("日本語のメモ", "日本語のメモ", 12),
            ("Cafe\u{301} crème 🎙️ and a very long title that goes on and on", "Cafe\u{301} crème 🎙️ and a very long title that goes on and on", 55),
            ("Line one\nline two", #"Line one\nline two"#, 18),
        ]
        let ids = try titles.map { try cli.importTone(title: $0.title) }
        let lines = try cli.lines("list")
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("ID" + String(repeating: " ", count: 12) + "TITLE" + String(repeating: " ", count: 52) + "CREATED"))
        for (id, title) in zip(ids, titles) {
            let row = try #require(lines.first { $0.hasPrefix(id) })
            let created = id + "  " + title.cell + String(repeating: " ", count: 55 - title.columns) + "  2"
            #expect(row.hasPrefix(created), "\(row)")
            #expect(row.hasSuffix("  wav 48 kHz mono  48 KB"), "\(row)")
        }
    }

    @Test(arguments: [80, 60])
    func onATerminalTheTableFitsItsWidthAndOffOneItStaysWhole(columns: Int) throws {
        let cli = try CLI()
        let long = "Notes from the long Thursday planning meeting about the garden fence"
        for title in ["Standup", "Garden fence", long] { _ = try cli.importTone(title: title, channels: 2) }
        let terminal = try PseudoTerminal(CLI.binary, ["list"], environment: cli.environment, columns: columns)
        #expect(terminal.waitForExit(timeout: 10) == 0)
        let lines = terminal.screen.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == 4, "\(terminal.screen)")
        #expect(lines.allSatisfy { NarrowTerminalTests.columns($0) <= columns }, "\(terminal.screen)")
        // Each memo whole on its line: its id, its title or the start of it with "…", and its duration.
        #expect(lines.contains { $0.contains("  Standup  ") && $0.contains("0:00.5") })
        #expect(lines.contains { $0.contains("  Garden fence  ") })
        let shortened = try #require(lines.first { $0.contains("  Notes from") })
        #expect(shortened.contains(#/  Notes from[^…]{5,}…  /#) && shortened.contains("0:00.5"), "\(shortened)")

        // Off a terminal (a pipe), nothing is cut, the title neither, as the README says: lines as wide as they come.
        let piped = try cli.lines("list")
        #expect(piped.contains { $0.contains("wav 48 kHz stereo") && $0.contains("  \(long)  ") }, "\(piped)")
        #expect(!piped.joined().contains("…"))
        #expect(piped.map(NarrowTerminalTests.columns).max() ?? 0 > 80)
    }

    @Test func listSortsByTitleOrDurationAndPrintsJSON() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "banana", seconds: 0.3)
        _ = try cli.importTone(title: "Apple", seconds: 0.9, format: "opus")
        _ = try cli.importTone(title: "cherry", seconds: 0.6, format: "caf")
        func titles(_ arguments: String...) throws -> [String] {
            let result = try Tool.run(CLI.binary, arguments, environment: cli.environment)
            let memos = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
            for memo in memos {
                #expect(Set(memo.keys) == ["id", "title", "createdAt", "duration", "file", "format", "sampleRate",
                                           "channels", "sizeBytes", "peakDBFS", "averageDBFS", "state", "loudness", "markers"])
            }
            return memos.compactMap { $0["title"] as? String }
        }
        #expect(try titles("list", "--sort", "title", "--json") == ["Apple", "banana", "cherry"])
        #expect(try titles("list", "--sort", "duration", "--json") == ["Apple", "cherry", "banana"])
        let table = try cli.lines("list", "--sort", "title").dropFirst()
        #expect(table.map { $0.dropFirst(14).prefix(6) } == ["Apple ", "banana", "cherry"])
    }

    @Test func memosOfTheSameSecondAreListedLastImportedFirst() throws {
        let cli = try CLI()
        // Three files that say they were recorded in the same second, imported one after the other.
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        for title in ["First", "Second", "Third"] {
            let file = cli.scratch.file("\(title).wav")
            let writer = try AudioFileWriter(url: file, settings: AudioSettings(sampleRate: 8000), metadata: AudioMetadata(title: title, creationDate: date))
            try [Float](repeating: 0.25, count: 80).withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
            #expect(try cli.run("import", file.path).status == 0)
        }
        let json = try cli.run("list", "--json")
        let memos = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(memos.compactMap { $0["title"] as? String } == ["Third", "Second", "First"])
        #expect(Set(memos.compactMap { $0["createdAt"] as? String }) == ["2027-01-15T08:00:00Z"])
    }

    @Test func aThousandMemosAreListedNewestFirst() throws {
        let cli = try CLI()
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Tiny files dropped into the store, each with its title and date inside, for the store to adopt.
        let samples = [Float](repeating: 0.25, count: 80)
        let ids = (1...1000).map { String(format: "%012x", $0 * 7919) }
        for (number, id) in zip(1..., ids) {
            let writer = try AudioFileWriter(
                url: cli.home.appendingPathComponent("\(id).wav"), settings: AudioSettings(sampleRate: 8000),
                metadata: AudioMetadata(title: "Memo \(number)", creationDate: Date(timeIntervalSince1970: 1_800_000_000 + Double(number) * 60)),
                permissions: [.ownerReadWrite])
            try samples.withUnsafeBufferPointer { try writer.write($0) }
            try writer.close()
        }
        let lines = try cli.lines("list")
        #expect(lines.count == 1001)
        #expect(lines.dropFirst().map { String($0.prefix(12)) } == ids.reversed())
        #expect(lines[1].contains("  Memo 1000  ") && lines[1000].contains("  Memo 1  "))
        let byTitle = try cli.lines("list", "--sort", "title")
        #expect(byTitle.dropFirst().map { String($0.prefix(12)) } == ids)
        let json = try cli.run("list", "--json")
        let memos = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(memos.count == 1000 && memos.first?["title"] as? String == "Memo 1000")
    }

    @Test func thousandsOfMemosFormattedInPartsLineUpAndListInOrder() throws {
        let cli = try CLI()
        let seed = try cli.importTone(title: "Seed", seconds: 0.05)
        let indexURL = cli.storeState.appendingPathComponent("memos.json")
        let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: indexURL)) as? [String: Any])
        let entry = try #require((index["memos"] as? [[String: Any]])?.first)
        // 3,000 more entries, hard links to the seed's file: enough for `list` to format them in parts, one per core.
        // The widest title is the oldest memo's, on the last line, in the last part.
        var memos = [entry]
        for number in 1...3000 {
            let id = String(format: "%012lx", 0xB0_0000_0000 + number)
            try FileManager.default.linkItem(
                at: cli.home.appendingPathComponent("\(seed).wav"), to: cli.home.appendingPathComponent("\(id).wav"))
            memos.append(entry.merging([
                "id": id, "file": "\(id).wav", "title": number == 1 ? "The oldest title, and the widest" : "Memo \(number)",
                "createdAt": ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_767_225_600 + Double(number) * 60)),
            ]) { $1 })
        }
        try JSONSerialization.data(withJSONObject: ["schemaVersion": 1, "memos": memos]).write(to: indexURL)

        let lines = try cli.lines("list")
        #expect(lines.count == 3002 && lines.last?.contains("  The oldest title, and the widest  ") == true)
        // Every line's date starts where the heading says, two columns after the widest title.
        let created = try #require(lines[0].range(of: "CREATED")).lowerBound.utf16Offset(in: lines[0])
        #expect(created == 14 + "The oldest title, and the widest".count + 2)
        let misaligned = lines.dropFirst().filter { line in
            let date = line.utf8.dropFirst(created).prefix(16)
            return date.count != 16 || !String(decoding: date, as: UTF8.self).hasPrefix("20")
        }
        #expect(misaligned.isEmpty, "\(misaligned.prefix(3))")
        // The JSON is encoded in the same parts, and is still one array in the same order.
        let json = try cli.run("list", "--json")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.compactMap { $0["id"] as? String } == lines.dropFirst().map { String($0.prefix(12)) })
    }

    @Test func aCorruptIndexStillListsEveryMemoByTitle() throws {
        let cli = try CLI()
        _ = try cli.importTone(title: "Groceries")
        _ = try cli.importTone(title: "Dentist — Monday", format: "caf")
        _ = try cli.importTone(title: "Idea", format: "opus")
        let broken = Data("{\"schemaVersion\": 1, \"memos\": [{\"id\": \"12".utf8)
        try broken.write(to: cli.storeState.appendingPathComponent("memos.json"))
        let result = try cli.run("list")
        #expect(result.status == 0 && result.standardError.isEmpty)
        for title in ["Groceries", "Dentist — Monday", "Idea"] { #expect(result.standardOutput.contains("  \(title)  ")) }
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.storeState.path)
        let aside = try #require(names.first { $0.hasPrefix("memos.json.broken-") })
        #expect(try Data(contentsOf: cli.storeState.appendingPathComponent(aside)) == broken)
        #expect(try JSONSerialization.jsonObject(with: try #require(cli.index)) is [String: Any])
    }
}
