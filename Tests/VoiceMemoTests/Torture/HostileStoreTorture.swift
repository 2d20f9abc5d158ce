import Foundation
import TestSupport
import Testing

/// A store someone else has been at: a damaged or forged index, files and links planted beside the memos,
/// presets that are not what they seem, a store that cannot be written, one at an unusual path. Every
/// memo whose audio is there stays listed, nothing outside the store is read as a memo, written or deleted,
/// and every refusal is one line.
@Suite(.timeLimit(.minutes(10)), .tags(.torture)) struct HostileStoreTorture {
    /// The memos `list --json` prints, failing the test when `list` does not succeed.
    func listed(_ cli: CLI) throws -> [[String: Any]] {
        let result = try cli.run("list", "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        return try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]] ?? []
    }

    /// A file outside the store that must come through everything untouched.
    func victim(_ cli: CLI) throws -> (url: URL, bytes: Data) {
        let path = cli.scratch.path("victim.wav")
        try Sox.synth(to: path, rate: 48000, channels: 1, seconds: 0.2, "sine 300")
        return (URL(fileURLWithPath: path), try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func aDamagedIndexNeverLosesAMemo() throws {
        let cli = try CLI()
        var ids: Set<String> = []
        for number in 0..<3 { ids.insert(try cli.importTone(title: "Memo \(number)", format: ["wav", "caf", "opus"][number])) }
        let index = cli.storeState.appendingPathComponent("memos.json")
        let healthy = Array(try Data(contentsOf: index))
        var random = SeededGenerator(seed: 0x1DE)
        for number in 0..<Torture.scale(quick: 40, long: 1000) {
            try Data(Mutation.allCases.randomElement(using: &random)!.apply(to: healthy, using: &random)).write(to: index)
            let memos = try listed(cli)
            #expect(Set(memos.compactMap { $0["id"] as? String }) == ids, "case \(number)")
        }
        // Every index that could not be read was kept aside, not deleted.
        let names = try FileManager.default.contentsOfDirectory(atPath: cli.storeState.path)
        #expect(names.contains { $0.hasPrefix("memos.json.broken-") })
    }

    @Test func aDamagedIndexCacheIsNeverBelieved() throws {
        let cli = try CLI()
        for number in 0..<3 { _ = try cli.importTone(title: "Memo \(number)", format: ["wav", "caf", "opus"][number]) }
        let truth = try cli.run("list", "--json").standardOutput
        let cache = cli.storeState.appendingPathComponent(".memos.cache")
        let healthy = Array(try Data(contentsOf: cache))
        var random = SeededGenerator(seed: 0xCAC4E)
        for number in 0..<Torture.scale(quick: 40, long: 1000) {
            try Data(Mutation.allCases.randomElement(using: &random)!.apply(to: healthy, using: &random)).write(to: cache)
            #expect(try cli.run("list", "--json").standardOutput == truth, "case \(number)")
        }
    }

    @Test(arguments: ["complete", "recording"])
    func aForgedIndexEntryCannotReachOutsideTheStore(state: String) throws {
        let cli = try CLI()
        let kept = try cli.importTone(title: "Kept")
        let (victim, bytes) = try victim(cli)
        let lockBait = cli.scratch.file(".bait.recording")
        try Data("bait".utf8).write(to: lockBait)
        // Entries naming files and lock files outside the store, by relative and absolute paths.
        let index = cli.storeState.appendingPathComponent("memos.json")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: index)) as! [String: Any]
        var memos = json["memos"] as! [[String: Any]]
        let template = memos[0]
        for (id, file) in [("../victim", "../victim.wav"), ("../bait", "../victim.wav"), ("aaaaaaaaaaaa", victim.path),
                           ("bbbbbbbbbbbb", "bbbbbbbbbbbb.wav/../../victim.wav")] {
            var forged = template
            forged["id"] = id
            forged["file"] = file
            forged["title"] = "Forged \(id)"
            forged["state"] = state
            memos.append(forged)
        }
        json["memos"] = memos
        try JSONSerialization.data(withJSONObject: json).write(to: index)

        #expect(try listed(cli).compactMap { $0["id"] as? String } == [kept])
        for arguments in [["info", "Forged ../victim"], ["rename", "Forged ../victim", "Mine"],
                          ["export", "Forged aaaaaaaaaaaa", cli.scratch.path("out.wav")], ["delete", "Forged bbbbbbbbbbbb"]] {
            let result = try cli.run(arguments, with: [:])
            #expect(result.status == 1 && result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        #expect(try Data(contentsOf: victim) == bytes)
        #expect(FileManager.default.fileExists(atPath: lockBait.path))
        #expect(try cli.run("delete", kept).status == 0)
        #expect(try Data(contentsOf: victim) == bytes)
    }

    @Test func linksPlantedInTheStoreAreNeverWrittenThrough() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Real")
        let (victim, bytes) = try victim(cli)
        // A link with a memo's name pointing outside, and the index and lock replaced by links.
        try FileManager.default.createSymbolicLink(atPath: cli.home.appendingPathComponent("cccccccccccc.wav").path, withDestinationPath: victim.path)
        #expect(try listed(cli).compactMap { $0["id"] as? String } == [id])
        #expect(try cli.run("rename", "cccccccccccc", "Renamed link").status == 1)
        let indexTarget = cli.scratch.file("index-target")
        try Data("outside".utf8).write(to: indexTarget)
        let index = cli.storeState.appendingPathComponent("memos.json")
        try FileManager.default.removeItem(at: index)
        try FileManager.default.createSymbolicLink(at: index, withDestinationURL: indexTarget)
        _ = try cli.importTone(title: "After the link")
        #expect(try cli.run("rename", id, "Renamed").status == 0)
        #expect(try Data(contentsOf: victim) == bytes)
        #expect(try String(contentsOf: indexTarget, encoding: .utf8) == "outside")
        #expect(Set(try listed(cli).compactMap { $0["title"] as? String }).isSuperset(of: ["Renamed", "After the link"]))
        // A lock that is a link: the store can be read, as a read-only one can, but it refuses to change rather than
        // create or lock a file elsewhere.
        let lock = cli.storeState.appendingPathComponent("lock")
        try FileManager.default.removeItem(at: lock)
        try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: cli.scratch.file("lock-target"))
        #expect(try listed(cli).count == 2)
        let refused = try cli.run("rename", id, "Again")
        #expect(refused.status == 1 && refused.standardError.split(separator: "\n").count == 1, "\(refused.standardError)")
        #expect(!FileManager.default.fileExists(atPath: cli.scratch.path("lock-target")))
    }

    @Test func hostilePresetsAreRefusedInOneLine() throws {
        // A broken preset file is a file that failed (1); a preset name that names no preset is a usage error (2).
        let cli = try CLI()
        let presets = cli.scratch.file("config/voicememo/presets")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        let bodies = [
            "", "{", "[]", "null", #"{"format": "opus"}"#, #"{"format": "mp3", "sampleRate": 48000, "channels": 1}"#,
            #"{"format": "wav", "sampleRate": 1e308, "channels": 1}"#, #"{"format": "wav", "sampleRate": -48000, "channels": 1}"#,
            #"{"format": "wav", "sampleRate": 48000, "channels": 100000}"#, #"{"format": "wav", "sampleRate": "48000", "channels": 1}"#,
            #"{"format": "opus", "sampleRate": 48000, "channels": 1, "bitRate": -1}"#,
            String(repeating: "[", count: 100_000), "{\"description\": \"" + String(repeating: "x", count: 1_000_000) + "\"}",
        ]
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        var environment = cli.environment
        environment["XDG_CONFIG_HOME"] = cli.scratch.path("config")
        for (number, body) in bodies.enumerated() {
            try Data(body.utf8).write(to: presets.appendingPathComponent("bad\(number).json"))
            let result = try Tool.run(CLI.binary, ["import", source, "--preset", "bad\(number)"], environment: environment)
            #expect(result.status == 1 && result.standardError.split(separator: "\n").count == 1, "preset \(number): \(result.status) \(result.standardError.prefix(200))")
        }
        for name in ["../../../etc/passwd", "/etc/passwd", "", ".", "bad0/../bad1"] {
            let result = try Tool.run(CLI.binary, ["import", source, "--preset", name], environment: environment)
            #expect(result.status == 2 && result.standardError.split(separator: "\n").count == 1, "preset \(name): \(result.standardError)")
        }
        #expect(try listed(cli).isEmpty)
    }

    @Test func aStoreThatCannotBeWrittenIsStillListedAndRefusesChangesInOneLine() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Kept")
        let source = cli.scratch.path("new.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.2, "sine 440")
        // As an ordinary user who owns the store but may not write in it (root writes anywhere), and with
        // no cache of the index to be made.
        let cache = cli.storeState.appendingPathComponent(".memos.cache").path
        try FileManager.default.removeItem(atPath: cache)
        try Tool.output("chown", ["-R", "nobody", cli.home.path])
        try Tool.output("chmod", ["755", cli.scratch.url.path])
        try Tool.output("chmod", ["a+r", source])
        try Tool.output("chmod", ["500", cli.home.path])
        defer { _ = try? Tool.run("chmod", ["700", cli.home.path]) }
        let listed = try cli.run("list", "--json", as: "nobody")
        #expect(listed.status == 0 && listed.standardOutput.contains(id), "\(listed.standardError)")
        for arguments in [["import", source], ["rename", id, "New"], ["delete", id]] {
            let result = try Tool.run("runuser", ["-u", "nobody", "--", "env", "VOICEMEMO_HOME=\(cli.home.path)", CLI.binary] + arguments)
            #expect(result.status == 1 && result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result.standardError)")
        }
        let after = try cli.run("list", "--json", as: "nobody")
        #expect(after.status == 0 && after.standardOutput.contains(id) && after.standardOutput.contains("Kept"))
        #expect(!FileManager.default.fileExists(atPath: cache))
    }

    @Test func aStoreAtAPathWithSpacesAndAccentsWorksThroughout() throws {
        let cli = try CLI()
        let home = cli.scratch.file("My Mémos — 🎙 (2026)")
        var environment = cli.environment
        environment["VOICEMEMO_HOME"] = home.path
        let run = { (arguments: [String]) throws -> ToolResult in try Tool.run(CLI.binary, arguments, environment: environment) }
        let source = cli.scratch.path("a tone, é.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.3, "sine 440")
        let imported = try run(["import", source, "--title", "Été", "--json"])
        #expect(imported.status == 0, "\(imported.standardError)")
        let microphone = try ALSATestDevices.microphone(playing: source)
        let recorded = try Tool.run(CLI.binary, ["record", "--device", microphone, "--duration", "0.2", "--title", "Rec ü"],
                                    environment: environment.merging(try ALSATestDevices.environment()) { $1 })
        #expect(recorded.status == 0, "\(recorded.standardError)")
        #expect(try run(["rename", "Été", "Hiver ❄"]).status == 0)
        let exported = cli.scratch.path("out dir ö/")
        try FileManager.default.createDirectory(atPath: exported, withIntermediateDirectories: true)
        #expect(try run(["export", "Hiver ❄", exported, "--format", "caf"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: exported).count == 1)
        #expect(try run(["play", "Rec ü", "--device", "null"]).status == 0)
        #expect(try run(["delete", "Rec ü", "Hiver ❄"]).status == 0)
        let list = try run(["list", "--json"])
        #expect(list.status == 0 && list.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }
}
