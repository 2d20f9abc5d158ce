import Foundation
import TestSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func eightImportsAtOnceLoseNothingAndTheIndexIsAlwaysWhole() throws {
        let cli = try CLI()
        try Sox.synth(to: cli.scratch.path("a.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let imports = try (0..<8).map { try cli.start("import", cli.scratch.path("a.wav"), "--title", "Memo \($0)") }
        // Read the index as another program would, without the lock, as often as possible while they run.
        var looks = 0
        var failures: [String] = []
        while imports.contains(where: \.isRunning) {
            if let data = cli.index {
                looks += 1
                if (try? JSONSerialization.jsonObject(with: data)) == nil { failures.append(String(decoding: data, as: UTF8.self)) }
            } else if looks > 0 {
                failures.append("the index vanished")
            }
            usleep(200)
        }
        for result in imports.map({ $0.finish() }) { #expect(result.status == 0, "\(result.standardError)") }
        #expect(failures.isEmpty, "\(failures.prefix(1))")
        #expect(looks > 0)
        let memos = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]]
        #expect(Set(memos?.compactMap { $0["title"] as? String } ?? []) == Set((0..<8).map { "Memo \($0)" }))
    }
}

/// Readers never wait for writers, writers wait their turn, and a store on a read-only medium can still be read.
@Suite(.timeLimit(.minutes(2))) struct StoreSharingTests {
    /// Holds the store's lock, as a writer busy with a long change would, until the returned process is killed.
    func holdTheLock(_ cli: CLI) throws -> RunningTool {
        let holder = try Tool.start("flock", ["--exclusive", cli.storeState.appendingPathComponent("lock").path, "sh", "-c", "echo held; sleep 60"])
        #expect(holder.nextLine() == "held")
        return holder
    }

    @Test func readersDoNotWaitForAWriterAndWritersWaitTheirTurn() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "Kept", seconds: 0.3)
        let holder = try holdTheLock(cli)
        defer { holder.kill() }
        let started = ContinuousClock.now
        for arguments in [["list"], ["list", "--json"], ["info", id], ["play", id, "--device", "null"],
                          ["export", id, cli.scratch.path("out.wav")]] {
            let result = try cli.run(arguments, with: [:])
            #expect(result.status == 0 && result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        }
        // Within the ten seconds the lock used to be waited for before failing.
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(try Sox.info(cli.scratch.path("out.wav")).frames == 14400)
        // A writer waits for as long as the lock is held, then goes ahead.
        let rename = try cli.start("rename", id, "Renamed")
        try #require(rename.nextLine(timeout: 2) == nil)
        #expect(rename.isRunning)
        holder.kill()
        let result = rename.finish()
        #expect(result.status == 0 && result.standardOutput.contains("Renamed"), "\(result.standardError)")
    }

    @Test func sixteenImportsAtOnceAllSucceed() throws {
        let cli = try CLI()
        // Sources of different lengths, so that the imports end at different times.
        let sources = try (0..<4).map { number in
            let path = cli.scratch.path("source\(number).wav")
            try Sox.synth(to: path, rate: 44100, channels: 2, seconds: Double(1 + 3 * number), "pinknoise")
            return path
        }
        let imports = try (0..<16).map { number in
            try cli.start("import", sources[number % 4], "--title", "Import \(number)", "--format", ["wav", "caf", "opus", "wav"][number % 4])
        }
        for (number, result) in imports.map({ $0.finish() }).enumerated() {
            #expect(result.status == 0, "import \(number): \(result.standardError)")
        }
        let memos = try JSONSerialization.jsonObject(with: Data(cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(Set(memos.compactMap { $0["title"] as? String }) == Set((0..<16).map { "Import \($0)" }))
        let strays = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter { $0.hasSuffix(".partial") }
        #expect(strays.isEmpty)
    }

    /// Runs `voicememo arguments…` with the store mounted read-only, as on a backup disk or a card, in a mount
    /// namespace of its own.
    func runOnReadOnlyStore(_ cli: CLI, _ arguments: [String]) throws -> ToolResult {
        let script = #"mount --bind "$STORE" "$STORE" && mount -o remount,bind,ro "$STORE" && exec "$VOICEMEMO" "$@""#
        var environment = cli.environment
        environment["STORE"] = cli.home.path
        environment["VOICEMEMO"] = CLI.binary
        return try Tool.run("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh"] + arguments, environment: environment)
    }

    @Test func aReadOnlyStoreListsPlaysAndExportsAndSaysItIsReadOnlyOtherwise() throws {
        let cli = try CLI()
        let id = try cli.importTone(title: "On a card", seconds: 0.3)
        // A recording that died and a file copied in since the index was written: seen, though nothing can be saved.
        try FileManager.default.copyItem(atPath: cli.home.appendingPathComponent("\(id).wav").path,
                                         toPath: cli.home.appendingPathComponent("0123456789ab.wav").path)
        let before = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).sorted()
        let listed = try runOnReadOnlyStore(cli, ["list", "--json"])
        #expect(listed.status == 0 && listed.standardError.isEmpty, "\(listed.standardError)")
        let memos = try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]] ?? []
        #expect(Set(memos.compactMap { $0["id"] as? String }) == [id, "0123456789ab"])
        for arguments in [["info", id], ["play", id, "--device", "null"], ["export", id, cli.scratch.path("copy.wav")]] {
            let result = try runOnReadOnlyStore(cli, arguments)
            #expect(result.status == 0 && result.standardError.isEmpty, "\(arguments): \(result.standardError)")
        }
        let source = cli.scratch.path("new.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 0.2, "sine 300")
        for arguments in [["rename", id, "New"], ["delete", id], ["import", source], ["record", "--device", "null", "--duration", "1"]] {
            let result = try runOnReadOnlyStore(cli, arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.standardError == "voicememo: the memo store at '\(cli.home.path)' is on a read-only file system: its memos can be listed, played and exported, not changed\n",
                    "\(arguments): \(result.standardError)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.home.path).sorted() == before)
    }
}
