import Foundation
import TestSupport
import Testing

@Suite struct RenameDeleteTests {
    @Test(arguments: ["wav", "caf", "opus"])
    func renameChangesTheTitleEverywhereItIsShown(format: String) throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Old", format: format)
        let result = try cli.run("rename", String(id.prefix(5)), "New title")
        #expect(result.status == 0 && result.standardError.isEmpty)
        #expect(result.standardOutput == "Renamed \(id) from “Old” to “New title”\n")
        #expect(try cli.lines("list")[1].contains("  New title  "))
        #expect(try cli.json(cli.run("info", "New title", "--json"))["id"] as? String == id)
        #expect(try cli.run("info", "Old").status == 1)
        // The title is inside the file (Opus too, in its comment header): an index rebuilt from the files still has it.
        try FileManager.default.removeItem(at: cli.storeState.appendingPathComponent("memos.json"))
        #expect(try cli.json(cli.run("info", "New title", "--json"))["id"] as? String == id)
        #expect(try !FileManager.default.contentsOfDirectory(atPath: cli.home.path).contains { $0.hasSuffix(".title") })
    }

    @Test func aNewTitleMustNotBeEmpty() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Kept")
        let result = try cli.run("rename", id, "  ")
        #expect(result.status == 2 && result.standardError.contains("The new title must not be empty."))
        #expect(try cli.json(cli.run("info", id, "--json"))["title"] as? String == "Kept")
    }

    @Test func deleteRemovesSeveralMemosAndSaysWhich() throws {
        let cli = try CLI()
        let first = try cli.importTone(title: "First")
        let kept = try cli.importTone(title: "Kept")
        let last = try cli.importTone(title: "Last", format: "opus")
        let files = try [first, last].map { try #require(cli.json(cli.run("info", $0, "--json"))["file"] as? String) }
        let result = try cli.run("delete", "First", String(last.prefix(6)), last)
        #expect(result.status == 0 && result.standardError.isEmpty)
        #expect(result.standardOutput == "Deleted \(first) “First”: in the trash for 30 days\nDeleted \(last) “Last”: in the trash for 30 days\n")
        #expect(try cli.lines("list").dropFirst().map { String($0.prefix(12)) } == [kept])
        for file in files { #expect(!FileManager.default.fileExists(atPath: file)) }
    }

    @Test func oneBadReferenceDeletesNothing() throws {
        let cli = try CLI()
        let first = try cli.importTone(title: "First")
        let second = try cli.importTone(title: "Second")
        let before = cli.index
        let result = try cli.run("delete", first, "Nope", second)
        #expect(result.status == 1 && result.standardOutput.isEmpty)
        #expect(result.standardError == "voicememo: no memo matches 'Nope'; run 'voicememo list' to see ids and titles\n")
        #expect(cli.index == before)
        #expect(try cli.lines("list").count == 3)
    }

    @Test func aTitleThatLooksLikeAPathStaysATitle() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "../../x")
        #expect(try cli.run("rename", "../../x", "../../y").status == 0)
        #expect(try cli.lines("list")[1].hasPrefix("\(id)  ../../y  "))
        let file = try #require(try cli.json(cli.run("info", "../../y", "--json"))["file"] as? String)
        #expect(URL(fileURLWithPath: file).deletingLastPathComponent().path == cli.home.path)
        let around = cli.scratch.url.deletingLastPathComponent()
        for name in ["x", "y"] {
            #expect(!FileManager.default.fileExists(atPath: around.appendingPathComponent(name).path))
            #expect(!FileManager.default.fileExists(atPath: cli.scratch.path(name)))
        }
        #expect(try cli.run("delete", "../../y").status == 0)
    }

    @Test func theStoreStaysPrivateThroughEveryChange() throws {
        let cli = try CLI()
        let first = try cli.importTone(title: "First")
        let second = try cli.importTone(title: "Second", format: "caf")
        #expect(try cli.run("rename", first, "Renamed").status == 0)
        #expect(try cli.run("rename", "Second", "Also renamed").status == 0)
        #expect(try cli.run("delete", "Renamed").status == 0)
        let attributes = FileManager.default.attributesOfItem
        #expect(try attributes(cli.home.path)[.posixPermissions] as? Int == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
        // The deleted memo's waveform went with it, to the trash; the other's stays beside it. Each change is a file:
        // two imports, two renames, a delete. The index and the lock are the machine's, outside the store.
        #expect(Set(names.filter { !$0.hasSuffix(".caf") && !$0.hasSuffix(".change") }) == [".\(second).waveform.dat", ".trash"])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: cli.storeState.path)).isSuperset(of: ["lock", "memos.json", ".memos.cache"]))
        #expect(try attributes(cli.storeState.path)[.posixPermissions] as? Int == 0o700)
        #expect(names.filter { $0.hasSuffix(".change") }.count == 5)
        for name in names where name != ".trash" {
            #expect(try attributes(cli.home.appendingPathComponent(name).path)[.posixPermissions] as? Int == 0o600, "\(name)")
        }
        let trash = cli.home.appendingPathComponent(".trash")
        #expect(try attributes(trash.path)[.posixPermissions] as? Int == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: trash.path) {
            #expect(try attributes(trash.appendingPathComponent(name).path)[.posixPermissions] as? Int == 0o600, "\(name)")
        }
    }

    /// A delete that cannot keep the memo in the trash (no file may grow: its record cannot be written) deletes nothing
    /// and says so in one line.
    @Test func aDeleteThatCannotWriteToTheTrashDeletesNothing() throws {
        let cli = try CLI()
        let kept = try cli.importTone(title: "Kept")
        let gone = try cli.importTone(title: "Gone")
        var environment = cli.environment
        environment["VOICEMEMO"] = CLI.binary
        let result = try Tool.run("bash", ["-c", #"trap '' XFSZ; ulimit -f 0; exec "$VOICEMEMO" delete "$0""#, gone], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.hasPrefix("voicememo: cannot delete '\(cli.home.path)/.trash': "), "\(result.standardError)")
        #expect(result.standardError.split(separator: "\n").count == 1)
        #expect(FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("\(gone).wav").path))
        #expect(try cli.lines("list").dropFirst().map { String($0.prefix(12)) }.sorted() == [kept, gone].sorted())
        #expect(try cli.lines("trash") == ["The trash is empty."])
    }

    /// Issue 32: a delete was for good. Now the memo waits in the trash, listed with the day it was deleted and the
    /// days left; restore by its title brings it back as it was, byte for byte, and undo undoes a delete and a rename.
    @Test func aDeletedMemoWaitsInTheTrashAndComesBack() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Two", seconds: 1.5, format: "opus")
        let file = cli.home.appendingPathComponent("\(id).opus")
        let audio = try Data(contentsOf: file)
        #expect(try cli.run("delete", "Two").status == 0)
        #expect(try cli.lines("list") == ["No memos yet. Add one with: voicememo import FILE"])
        let trash = try cli.lines("trash")
        #expect(trash.count == 3 && trash[1].hasPrefix("\(id)  Two ") && trash[1].contains("  delete  ") && trash[1].contains("  30 days  "),
                "\(trash)")
        #expect(trash[2].hasPrefix("1 version, "))
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(cli.run("trash", "--json").standardOutput.utf8)) as? [[String: Any]])
        #expect(listed.count == 1 && listed[0]["expiresAt"] as? String != nil && (listed[0]["edit"] as? [String: Any])?["delete"] != nil)
        let restored = try cli.run("restore", "Two")
        #expect(restored.status == 0 && restored.standardOutput.hasPrefix("Restored \(id) “Two”, deleted "), "\(restored.standardError)")
        #expect(try Data(contentsOf: file) == audio)
        #expect(try cli.json(cli.run("info", id, "--json"))["duration"] as? Double == 1.5)
        #expect(try cli.lines("trash") == ["The trash is empty."])

        #expect(try cli.run("rename", "Two", "Deux").status == 0)
        let undone = try cli.run("undo")
        #expect(undone.status == 0 && undone.standardOutput.hasPrefix("Restored \(id) “Two” as it was before the rename of "), "\(undone.standardError)")
        #expect(try FFprobe.tags(of: file.path).tags["title"] == "Two")
        #expect(try cli.run("delete", id).status == 0)
        #expect(try cli.run("undo").standardOutput.hasPrefix("Restored \(id) “Two”, deleted "))
        #expect(try cli.json(cli.run("info", "Two", "--json"))["id"] as? String == id)
    }

    @Test func aTitleThatStartsWithADashIsATitle() throws {
        let cli = try CLI()
        let tone = cli.scratch.path("tone.wav")
        try Sox.synth(to: tone, rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        for arguments in [["import", tone, "--title", "-draft", "--json"], ["import", tone, "--title=-notes", "--json"]] {
            let result = try cli.run(arguments, with: [:])
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
        }
        let titles = try cli.lines("list", "--sort", "title").dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true)[1] }
        #expect(titles == ["-draft", "-notes"])
        let renamed = try cli.run("rename", "--", "-draft", "-final")
        #expect(renamed.status == 0 && renamed.standardOutput.contains("to “-final”"), "\(renamed.standardError)")
        #expect(try cli.run("import", "--help").standardOutput.contains("--title=-x"))
        #expect(try cli.run("rename", "--help").standardOutput.contains("rename ID -- -x"))
    }

    /// The first three characters of an id a list shows name nothing, and the error says why; a title two memos share
    /// names neither, and the error lists both with their ids and dates, as `list` shows them.
    @Test func aShortPrefixAndASharedTitleSayWhatToGiveInstead() throws {
        let cli = try CLI()
        let first = try cli.importTone(title: "Ideas")
        let second = try cli.importTone(title: "Ideas")
        let short = try cli.run("info", String(first.prefix(3)))
        #expect(short.status == 1 && short.standardOutput.isEmpty)
        #expect(short.standardError == "voicememo: '\(first.prefix(3))' is too short to name a memo by its id: give at least 4 "
            + "characters of the id, or the whole title; run 'voicememo list' to see ids and titles\n")
        #expect(try cli.run("info", String(first.prefix(4))).status == 0 || first.prefix(4) == second.prefix(4))
        let dates = try cli.lines("list").dropFirst().reduce(into: [String: String]()) { dates, line in
            let columns = line.split(separator: "  ", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
            dates[columns[0]] = columns[2]
        }
        let shared = try cli.run("delete", "Ideas")
        #expect(shared.status == 1 && shared.standardOutput.isEmpty)
        #expect(shared.standardError == "voicememo: 'Ideas' matches 2 memos: \(first) “Ideas” of \(dates[first] ?? "?"); "
            + "\(second) “Ideas” of \(dates[second] ?? "?"); name the one you mean by its id\n")
        #expect(try cli.lines("list").count == 3)
    }
}
