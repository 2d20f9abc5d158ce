import Foundation
import TestSupport
import Testing

/// `voicememo cache` (the list, `--json`, `--clear`, `--set-size`) and `--cache-size` on `play` and `import`, against a
/// local nginx, with the cache and the settings in the test's own `XDG_CACHE_HOME` and `XDG_CONFIG_HOME`.
@Suite(.timeLimit(.minutes(1))) struct CacheCommandTests {
    /// `seconds` of 16 kHz mono 16-bit noise (32 KB a second, and a 44-byte header), served as `name`.
    private func serve(_ name: String, seconds: Double, on server: HTTPServer, _ cli: CLI) throws -> URL {
        let file = cli.scratch.file(name)
        try Sox.synth(to: file.path, rate: 16000, channels: 1, seconds: seconds, "whitenoise")
        try server.put(file, as: name)
        return file
    }

    /// What `cache --json` says.
    private func listing(_ cli: CLI) throws -> (addresses: [[String: Any]], capacity: Int64?) {
        let result = try cli.run("cache", "--json")
        try #require(result.status == 0, "\(result.standardError)")
        let object = try cli.json(result)
        return (try #require(object["addresses"] as? [[String: Any]]), (object["capacity"] as? NSNumber)?.int64Value)
    }

    /// The disk space the cache's data files take, as `du` counts it.
    private func dataOnDisk(_ cli: CLI) throws -> Int64 {
        let directory = cli.cacheHome.appendingPathComponent("voicememo/http")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".data") }.reduce(0) { sum, name in
            var status = stat()
            try #require(stat(directory.appendingPathComponent(name).path, &status) == 0)
            return sum + Int64(status.st_blocks) * 512
        }
    }

    @Test func cacheListsEachAddressWithoutItsPasswordAndClearEmptiesItWhileAPlayGoesOn() throws {
        let cli = try CLI()
        let server = try HTTPServer(rate: "512k")
        let short = try serve("short.wav", seconds: 1, on: server, cli)
        _ = try serve("other.wav", seconds: 1, on: server, cli)
        let secret = server.url("other.wav").absoluteString.replacingOccurrences(of: "http://", with: "http://me:s3cret@")
        #expect(try cli.run("cache").standardOutput == "The cache is empty; it keeps at most 1G.\n")
        for address in [server.url("short.wav").absoluteString, secret] {
            let result = try cli.run("import", address, "--json")
            #expect(result.status == 0, "\(result.standardError)")
        }
        let table = try cli.run("cache")
        #expect(table.status == 0, "\(table.standardError)")
        let lines = table.standardOutput.split(separator: "\n").map(String.init)
        // The most recently used first.
        #expect(lines.count == 4 && lines[0].hasPrefix("ADDRESS") && lines[0].hasSuffix("LAST USED"), "\(lines)")
        #expect(lines[1].hasPrefix(server.url("other.wav").absoluteString + " ") && lines[1].contains("100 %"), "\(lines)")
        #expect(lines[2].hasPrefix(server.url("short.wav").absoluteString + " ") && lines[2].contains("100 %"), "\(lines)")
        #expect(lines[3].hasPrefix("2 addresses, ") && lines[3].hasSuffix(" on disk, of at most 1G."), "\(lines)")
        #expect(!table.standardOutput.contains("s3cret"))
        let (addresses, capacity) = try listing(cli)
        #expect(capacity == 1 << 30)
        #expect(addresses.map { $0["url"] as? String } == [server.url("other.wav").absoluteString, server.url("short.wav").absoluteString])
        #expect(addresses.allSatisfy { $0["complete"] as? Bool == true && $0["downloaded"] as? Int == 32_044 && $0["length"] as? Int == 32_044 },
                "\(addresses)")
        #expect(addresses.allSatisfy { ($0["sizeOnDisk"] as? Int).map { $0 >= 32_044 } ?? false && $0["lastUsed"] is String }, "\(addresses)")

        // A play under way (on an unclocked device, as fast as the download goes) while the cache is emptied: 6 s of
        // stereo noise at 48 kHz, 16-bit, which the `file` PCM gets back exactly (32-bit, shifted by 16); 2 s at 512 KB/s.
        let long = cli.scratch.file("long.wav")
        try Sox.synth(to: long.path, rate: 48000, channels: 2, seconds: 6, "whitenoise whitenoise")
        try server.put(long, as: "long.wav")
        let output = cli.scratch.path("out.raw")
        let play = try cli.start("play", server.url("long.wav").absoluteString, "--device", "file:'\(output)',raw")
        let index = cli.cacheHome.appendingPathComponent("voicememo/http/index.json")
        let deadline = Date().addingTimeInterval(10)
        func downloadedOfLong() -> Int {
            ((try? listing(cli).addresses)?.first { ($0["url"] as? String)?.hasSuffix("/long.wav") == true }?["downloaded"] as? Int) ?? 0
        }
        // Listed once it has bytes: an address that gave none yet is not.
        while (try? String(contentsOf: index, encoding: .utf8))?.contains("long.wav") != true || downloadedOfLong() == 0, Date() < deadline {
            usleep(50_000)
        }
        #expect(play.isRunning, "still downloading")
        let cleared = try cli.run("cache", "--clear")
        #expect(cleared.status == 0, "\(cleared.standardError)")
        #expect(cleared.standardOutput.wholeMatch(of: #/Removed 3 addresses from the cache, freeing [\d.]+ KB\.\n/#) != nil, "\(cleared.standardOutput)")
        let played = play.finish()
        #expect(played.status == 0, "\(played.standardError)")
        // Silence before the first period of audio.
        let samples = try Data(contentsOf: URL(fileURLWithPath: output)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }.drop { $0 == 0 }
        let expected = try Sox.samples(of: long.path)
        #expect(samples.count >= expected.count && Array(samples.prefix(expected.count)) == expected,
                "every sample, though the cache was emptied under it")
        #expect(try listing(cli).addresses.isEmpty, "what the play had went with it")
        #expect(try dataOnDisk(cli) == 0)
        let again = try cli.run("cache", "--clear", "--json")
        #expect(try cli.json(again)["removed"] as? Int == 0 && cli.json(again)["freed"] as? Int == 0)
        #expect(try Sox.samples(of: short.path).count == 16000)
    }

    @Test(arguments: [(80, ["ADDRESS", "DOWNLOADED", "SIZE", "LAST USED"]), (40, ["ADDRESS", "DOWNLOADED", "SIZE"]), (30, ["ADDRESS", "DOWNLOADED"])])
    func cacheOnATerminalFitsItsWidthTheAddressShorteningAndColumnsGoing(columns: Int, headings: [String]) throws {
        let cli = try CLI()
        let server = try HTTPServer()
        let name = "a-podcast-episode-with-a-rather-long-name.wav"
        _ = try serve(name, seconds: 1, on: server, cli)
        #expect(try cli.run("import", server.url(name).absoluteString, "--json").status == 0)
        let terminal = try PseudoTerminal(CLI.binary, ["cache"], environment: cli.environment, columns: columns)
        #expect(terminal.waitForExit(timeout: 10) == 0, "\(terminal.screen)")
        let lines = terminal.screen.components(separatedBy: "\r\n").dropLast()
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.allSatisfy { $0.count <= columns }, "fits \(columns) columns: \(lines)")
        #expect(lines.first?.split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } == headings, "\(lines)")
        // Cut in its middle: the file's name stays.
        #expect(lines.dropFirst().first.map { $0.hasPrefix("http:") && $0.contains("name.wav ") && $0.contains("…") } == true, "\(lines)")
        #expect(lines.dropFirst().first?.contains("100 %") == true, "\(lines)")
    }

    @Test func cacheSizeCapsTheCacheTheLeastRecentlyUsedGoingFirstAndTheSettingKeepsIt() throws {
        let cli = try CLI()
        let server = try HTTPServer()
        // 320 KB each: room for two in 700K (716,800 bytes).
        for name in ["a.wav", "b.wav", "c.wav"] { _ = try serve(name, seconds: 10, on: server, cli) }
        func play(_ name: String, _ extra: String...) throws {
            let result = try cli.run(["play", server.url(name).absoluteString, "--device", "file:'\(cli.scratch.path("out.raw"))',raw"] + extra, with: [:])
            #expect(result.status == 0, "\(result.standardError)")
        }
        for (name, kept) in [("a.wav", ["a.wav"]), ("b.wav", ["b.wav", "a.wav"]), ("c.wav", ["c.wav", "b.wav"]), ("a.wav", ["a.wav", "c.wav"])] {
            try play(name, "--cache-size", "700K")
            let urls = try listing(cli).addresses.compactMap { $0["url"] as? String }
            #expect(urls == kept.map { server.url($0).absoluteString }, "after \(name)")
            #expect(try dataOnDisk(cli) <= 700 * 1024, "after \(name)")
        }
        // The setting: room for one, from now on, without --cache-size.
        let set = try cli.run("cache", "--set-size", "400K")
        #expect(set.status == 0 && set.standardOutput.hasPrefix("The cache keeps at most 400K from now on"), "\(set.standardOutput)")
        #expect(try String(contentsOf: cli.configHome.appendingPathComponent("voicememo/cache-size"), encoding: .utf8) == "400K\n")
        try play("b.wav")
        #expect(try listing(cli).addresses.compactMap { $0["url"] as? String } == [server.url("b.wav").absoluteString])
        #expect(try listing(cli).capacity == 400 * 1024)
        #expect(try cli.run("cache").standardOutput.hasSuffix(" on disk, of at most 400K.\n"))
        // --cache-size wins over the setting for its run.
        try play("c.wav", "--cache-size", "1G")
        #expect(try listing(cli).addresses.count == 2)

        // A setting that is not a size: one line naming the file, and nothing played.
        try "lots\n".write(to: cli.configHome.appendingPathComponent("voicememo/cache-size"), atomically: true, encoding: .utf8)
        let broken = try cli.run("play", server.url("a.wav").absoluteString, "--device", "null")
        #expect(broken.status == 1)
        #expect(broken.standardError == "voicememo: the cache size setting \(cli.configHome.path)/voicememo/cache-size holds 'lots\\n', "
            + "not a size such as 500M or 2G; correct it or remove it\n")
    }

    @Test(arguments: [["play", "x", "--cache-size"], ["import", "x", "--cache-size"], ["cache", "--set-size"]], ["-5", "12X", ""])
    func aSizeThatIsNotOneIsAUsageErrorOfOneClearLine(command: [String], size: String) throws {
        let cli = try CLI()
        let result = try cli.run(command + [size], with: [:])
        #expect(result.status == 2)
        let option = command.last!
        #expect(result.standardError.split(separator: "\n").first.map(String.init)
            == "Error: The value '\(size)' is invalid for '\(option) <size>': \(option) takes a size with its unit, such as 500M or 2G (K, M, G, T: powers of 1024), not '\(size)'.",
            "\(result.standardError)")
        #expect(!FileManager.default.fileExists(atPath: cli.configHome.appendingPathComponent("voicememo/cache-size").path))
    }
}
