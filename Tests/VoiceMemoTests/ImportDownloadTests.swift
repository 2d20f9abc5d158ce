import Foundation
import TestSupport
import Testing

/// `voicememo import URL` while it downloads from a local nginx at a throttled rate: a bar redrawn in place on a
/// terminal, fitted to its width; a few plain lines elsewhere; nothing but the JSON with `--json`.
@Suite(.timeLimit(.minutes(1))) struct ImportDownloadTests {
    /// 4 s of stereo noise at 48 kHz, 16-bit: 768 KB, three seconds at 256 KB/s.
    private func serveNoise(_ cli: CLI, as name: String, on server: HTTPServer) throws -> URL {
        let file = cli.scratch.file("talk.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 4, "whitenoise whitenoise")
        try server.put(file, as: name)
        return file
    }

    /// The only memo's samples.
    private func importedSamples(_ cli: CLI) throws -> [Int32] {
        let memos = try #require(try JSONSerialization.jsonObject(with: Data(try cli.run("list", "--json").standardOutput.utf8)) as? [[String: Any]])
        try #require(memos.count == 1, "\(memos)")
        return try Sox.samples(of: try #require(memos[0]["file"] as? String))
    }

    @Test(arguments: [80, 40])
    func anImportOnATerminalDrawsABarThatMovesFitsTheWidthAndShowsTheNameEscaped(columns: Int) throws {
        let cli = try CLI()
        let server = try HTTPServer(rate: "256k")
        // A name with an escape sequence in it, which must not reach the terminal as one.
        let talk = try serveNoise(cli, as: "talk\u{1B}[31m.wav", on: server)
        let address = server.url("").absoluteString + "talk%1B%5B31m.wav"
        let terminal = try PseudoTerminal(CLI.binary, ["import", address], environment: cli.environment, columns: columns)
        #expect(terminal.waitForExit(timeout: 30) == 0, "\(terminal.screen.suffix(2000))")
        let screen = terminal.screen
        #expect(!screen.contains("\u{1B}[31m"), "the server's name, escaped")
        // `Downloading “talk\e[31m.wav”  ████······  295 KB / 768 KB  256 KB/s  0:02 left`, narrower on 40 columns.
        let bars = TerminalDisplayTests.frames(screen, height: 1).map { $0[0] }.filter { $0.contains("█") || $0.contains("·") }
        let loaded = bars.compactMap { $0.firstMatch(of: #/([\d.]+ [KM]?B) \/ 768 KB/#).map { String($0.1) } }
        #expect(loaded.count == bars.count && Set(loaded).count >= 2, "a bar that moves: \(bars)")
        #expect(bars.allSatisfy { $0.contains("talk\\e[31m.wav") || $0.contains("“t") }, "named: \(bars)")
        // Every live line (a line that wrapped would push the display down); what is printed after it may wrap.
        for bar in bars { #expect(bar.count <= columns, "fits \(columns) columns: \(bar)") }
        #expect(screen.contains("Imported “talk\\e[31m”"), "\(screen.suffix(500))")
        #expect(try importedSamples(cli) == Sox.samples(of: talk.path))
    }

    @Test func anImportOffATerminalPrintsAFewPlainLinesAndWithJSONNothingButTheJSON() throws {
        let cli = try CLI()
        let server = try HTTPServer(rate: "256k")
        let talk = try serveNoise(cli, as: "talk.wav", on: server)
        let result = try cli.run("import", server.url("talk.wav").absoluteString)
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        // `Downloading “talk.wav”: 38 % (295 KB of 768 KB), 238 KB/s, 0:02 left`, a tenth further each time.
        let progress = lines.filter { $0.hasPrefix("Downloading “talk.wav”: ") }
        #expect((1...10).contains(progress.count), "\(lines)")
        let percents = progress.compactMap { $0.firstMatch(of: #/: (\d+) % \([\d.]+ [KM]?B of 768 KB\)/#).flatMap { Int($0.1) } }
        #expect(percents.count == progress.count && percents == percents.sorted() && Set(percents).count == percents.count, "\(progress)")
        #expect(lines.count == progress.count + 2, "\(lines)")
        #expect(lines.dropLast().last?.hasPrefix("Downloaded “talk.wav” (768 KB) in 0:0") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("Imported “talk” as ") == true, "\(lines)")
        #expect(try importedSamples(cli) == Sox.samples(of: talk.path))

        // Downloaded again, from an empty cache: one line of JSON and nothing else.
        #expect(try cli.run("cache", "--clear").status == 0)
        #expect(try cli.run("delete", "talk").status == 0)
        let json = try cli.run("import", server.url("talk.wav").absoluteString, "--json")
        #expect(json.status == 0, "\(json.standardError)")
        #expect(json.standardOutput.split(separator: "\n").count == 1, "\(json.standardOutput)")
        #expect(try cli.json(json)["title"] as? String == "talk")
        #expect(server.bodyBytes() == 2 * 768_044, "downloaded twice: \(server.requests().map(\.range))")
    }
}
