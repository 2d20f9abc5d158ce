import Foundation
import TestSupport
import Testing

/// `voicememo play URL` and `import URL` killed with SIGKILL at random moments of their downloads, one or two at once
/// on one cache: afterwards every range the cache lists holds the file's very bytes (none torn), and an import then
/// completes with the whole file, downloading only what the cache lacks.
@Suite(.timeLimit(.minutes(10)), .tags(.torture)) struct KilledDownloadTorture {
    /// The cache's index: each entry's data file and the ranges it lists, as `[start, end)` pairs.
    func listedRanges(_ cli: CLI) throws -> [(file: String, ranges: [[Int]])] {
        let directory = cli.cacheHome.appendingPathComponent("voicememo/http")
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("index.json")) else { return [] }
        let index = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(index["entries"] as? [[String: Any]])
        return try entries.map { entry in
            (directory.appendingPathComponent(try #require(entry["file"] as? String)).path, try #require(entry["ranges"] as? [[Int]]))
        }
    }

    @Test func aCacheKilledAtRandomMomentsListsNoTornRangeAndAnImportThenCompletesIt() throws {
        let cli = try CLI()
        let talk = cli.scratch.file("talk.wav")
        try Sox.synth(to: talk.path, rate: 48000, channels: 2, seconds: 8, "whitenoise whitenoise")
        let source = try Data(contentsOf: talk)
        // 1.5 MB at 512 KB/s a connection: three seconds for a whole download.
        let server = try HTTPServer(rate: "512k")
        try server.put(talk, as: "talk.wav")
        let address = server.url("talk.wav").absoluteString
        var random = SeededGenerator(seed: 0xCAC4E)
        /// The most bytes the cache listed after a round's kills.
        var keptMost = 0
        for round in 0..<Torture.scale(quick: 6, long: 60) {
            // A file the cache holds nearly whole would be done before its kill: it changes on the server (a new
            // Last-Modified and ETag, the same bytes), and the next process starts it anew.
            let held = try listedRanges(cli).map { $0.ranges.reduce(0) { $0 + $1[1] - $1[0] } }.max() ?? 0
            if held > source.count * 2 / 5 {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: Double(round + 1))], ofItemAtPath: server.root.appendingPathComponent("talk.wav").path)
            }
            // Now and then two processes download at once; each play reads as fast as the download goes (no clock).
            let commands = (0..<(round % 3 == 2 ? 2 : 1)).map { _ in
                Bool.random(using: &random) ? ["import", address] : ["play", address, "--device", "null", "--no-meter"]
            }
            let running = try commands.map { try cli.start($0, with: [:]) }
            usleep(UInt32.random(in: 50_000...1_200_000, using: &random))
            for (command, process) in zip(commands, running) {
                guard process.isRunning else {
                    let result = process.finish()
                    Issue.record("round \(round): \(command) ended (\(result.status)) before its kill: \(result.standardError)")
                    continue
                }
                process.kill()
            }
            let afterKill = try listedRanges(cli)
            keptMost = max(keptMost, afterKill.map { $0.ranges.reduce(0) { $0 + $1[1] - $1[0] } }.max() ?? 0)
            for (file, ranges) in afterKill {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                for range in ranges {
                    #expect(range.count == 2 && range[0] < range[1] && range[1] <= source.count, "round \(round): \(range)")
                    guard range.count == 2, range[1] <= bytes.count, range[1] <= source.count else {
                        Issue.record("round \(round): \(range) lies beyond the data file (\(bytes.count) bytes)")
                        continue
                    }
                    #expect(bytes[range[0]..<range[1]] == source[range[0]..<range[1]], "round \(round): bytes \(range) torn")
                }
            }
        }
        let listed = try listedRanges(cli).flatMap(\.ranges).reduce(0) { $0 + $1[1] - $1[0] }
        #expect(keptMost > 0, "what the killed processes synced is kept")
        // nginx logs a killed client's response when it next writes to it, which a throttled one may do late: a server
        // started anew counts the last import's bytes alone.
        server.kill()
        try server.start()
        let before = server.bodyBytes()
        let result = try cli.run("import", address, "--json")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try Sox.samples(of: try #require(try cli.json(result)["file"] as? String)) == Sox.samples(of: talk.path))
        #expect(server.bodyBytes() - before <= source.count - listed, "only what the cache lacked: \(listed) bytes were listed")
    }
}
