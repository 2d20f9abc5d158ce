import Foundation
import TestSupport
import Testing

/// `voicememo play URL` and `voicememo import URL` against a local nginx that counts the bytes it sends, with the
/// download cache in the test's own `XDG_CACHE_HOME`.
@Suite(.timeLimit(.minutes(1))) struct RemoteTests {
    /// 3 s of stereo noise at 48 kHz, 16-bit: what the `file` PCM gets back exactly (32-bit, shifted by 16).
    private func noise(_ cli: CLI, seconds: Double = 3) throws -> URL {
        let file = cli.scratch.file("talk.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: seconds, "whitenoise whitenoise")
        return file
    }

    private func played(_ path: String) throws -> [Int32] {
        let samples = try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
        // The device gets silence until the first period that holds audio.
        return Array(samples.drop { $0 == 0 })
    }

    @Test func anAddressPlaysAsItDownloadsAndPlayingAgainOrImportingItDownloadsNothing() throws {
        let cli = try CLI()
        let talk = try noise(cli)
        let size = Int64(try Data(contentsOf: talk).count)
        let server = try HTTPServer()
        try server.put(talk, as: "talk.wav")
        let expected = try Sox.samples(of: talk.path)
        // The first play may fetch the header's read-ahead, then the rest (as the player claims the file whole).
        var firstPlayRequests = 0
        for pass in 1...2 {
            if pass == 2 { firstPlayRequests = server.requests().count }
            let output = cli.scratch.path("out-\(pass).raw")
            let result = try cli.run("play", server.url("talk.wav").absoluteString, "--device", "file:'\(output)',raw")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.hasPrefix("Playing “talk.wav” (0:03.0) on file:"), "\(result.standardOutput)")
            let samples = try played(output)
            #expect(samples.count >= expected.count && Array(samples.prefix(expected.count)) == expected, "pass \(pass)")
        }
        let imported = try cli.run("import", server.url("talk.wav").absoluteString, "--json")
        #expect(imported.status == 0, "\(imported.standardError)")
        let memo = try cli.json(imported)
        #expect(memo["title"] as? String == "talk" && memo["duration"] as? Double == 3)
        #expect(try Sox.samples(of: try #require(memo["file"] as? String)) == expected, "the memo is the file, whole")
        let requests = server.requests()
        #expect(server.bodyBytes() == size, "one download in all: \(requests.map { "\($0.status) \($0.range) \($0.bodyBytes)" })")
        #expect(
            requests.dropFirst(firstPlayRequests).allSatisfy { $0.status == 304 && $0.bodyBytes == 0 },
            "then only asked whether it changed: \(requests.map { "\($0.status) \($0.range) \($0.bodyBytes)" })")
    }

    /// A start into a long file fetches from there on; what lies before is fetched when asked for (an import), not
    /// while `play` waits for it.
    @Test func aStartIntoALongFileFetchesFromThereOnAndAnImportFetchesTheRest() throws {
        let cli = try CLI()
        let talk = try noise(cli, seconds: 20)
        let size = Int64(try Data(contentsOf: talk).count)
        let server = try HTTPServer(rate: "256k")
        try server.put(talk, as: "talk.wav")
        // A speaker the engine takes as clocked, as a sound card is: `plug` over the file PCM, in the user's .asoundrc.
        let output = cli.scratch.path("out.raw")
        let home = cli.scratch.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try """
            pcm.speaker { type plug slave { pcm { type file slave.pcm null file "\(output)" format raw } format S32_LE } }
            """.write(to: home.appendingPathComponent(".asoundrc"), atomically: true, encoding: .utf8)
        let result = try cli.run(
            ["play", server.url("talk.wav").absoluteString, "--start", "15", "--device", "speaker"], with: ["HOME": home.path])
        #expect(result.status == 0, "\(result.standardError)")
        let fifteenSeconds = 15 * 48000 * 2
        let expected = try Sox.samples(of: talk.path)
        let samples = try played(output)
        #expect(samples.count >= expected.count - fifteenSeconds, "the last 5 s played")
        #expect(Array(samples.prefix(expected.count - fifteenSeconds)) == Array(expected[fifteenSeconds...]))
        let requests = server.requests()
        let described = requests.map { "\($0.status) \($0.range) \($0.bodyBytes)" }
        // The header's request is cut short once the header is read; then 15 s to the end, 960 KB.
        #expect(server.bodyBytes() < size / 4 + 128 * 1024, "only the header and the last 5 s: \(described)")

        try server.limit(rate: nil)
        server.kill()
        try server.start()
        let imported = try cli.run("import", server.url("talk.wav").absoluteString, "--json")
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(try Sox.samples(of: try #require(try cli.json(imported)["file"] as? String)) == expected)
        // Bytes play received but had not listed in the cache when it ended (it commits every 256 KiB) come again; the
        // last 5 s, 960 KB, do not.
        #expect(server.bodyBytes() < size + 512 * 1024, "the import fetched what play had not: \(server.requests().map(\.range))")
    }

    /// An M4A with its index after the audio (ffmpeg's default) and an ADTS AAC file, on a link that takes 16 s for
    /// the whole file: `play` starts within a few seconds (the index is asked for with a range), and plays on to the end.
    @Test(arguments: [["-c:a", "aac"], ["-c:a", "aac", "-f", "adts"]])
    func anM4AOrADTSAddressStartsPlayingLongBeforeItIsDownloaded(encoding: [String]) throws {
        let cli = try CLI()
        let source = cli.scratch.path("source.wav")
        try Sox.synth(to: source, rate: 44100, channels: 1, seconds: 30, "whitenoise")
        let name = encoding.contains("adts") ? "talk.aac" : "talk.m4a"
        let file = cli.scratch.file(name)
        try Tool.output("ffmpeg", ["-v", "error", "-i", source, "-b:a", "128k"] + encoding + [file.path])
        let size = try Data(contentsOf: file).count
        let server = try HTTPServer(rate: "\(size / 16)")
        try server.put(file, as: name)
        let started = ContinuousClock.now
        let play = try cli.start(["play", server.url(name).absoluteString, "--device", "null", "--no-meter"], with: [:])
        let first = play.nextLine(timeout: 20)
        let firstLine = ContinuousClock.now - started
        #expect(first?.hasPrefix("Playing “\(name)” (0:") == true, "\(first ?? "nothing")")
        #expect(firstLine < .seconds(4), "the first line after \(firstLine), of a download of 16 s")
        let result = play.finish()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(ContinuousClock.now - started > .seconds(10), "the device without a clock played as the bytes came")
    }

    enum Failure: String, CaseIterable, Sendable {
        case notFound, forbidden, unknownHost, untrustedCertificate, notAudio
    }

    @Test(arguments: Failure.allCases)
    func aDownloadThatFailsSaysWhyInOneLineAndImportsNothing(failure: Failure) throws {
        let cli = try CLI()
        let server = try HTTPServer(tls: failure == .untrustedCertificate)
        try server.put(try noise(cli, seconds: 0.5), as: "talk.wav")
        let page = cli.scratch.file("page.html")
        try Data("<html><body>Not a memo</body></html>\n".utf8).write(to: page)
        try server.put(page, as: "page.html")
        let (address, said): (String, String) = switch failure {
        case .notFound: (server.url("gone.wav").absoluteString, "the server has no file at this address (HTTP 404)")
        case .forbidden: (server.url("private/talk.wav").absoluteString, "the server refuses to give the file (HTTP 403)")
        case .unknownHost: ("http://voicememo-test.invalid/talk.wav", "no host named 'voicememo-test.invalid' was found (DNS)")
        case .untrustedCertificate: (server.secureURL("talk.wav").absoluteString, "the server's certificate is not trusted (TLS: ")
        case .notAudio: (server.url("page.html").absoluteString, "not a recognised audio file")
        }
        var environment = cli.environment
        let temporary = cli.scratch.file("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        environment["TMPDIR"] = temporary.path
        for command in ["play", "import"] {
            let result = try Tool.run(CLI.binary, [command, address] + (command == "play" ? ["--device", "null"] : []), environment: environment)
            #expect(result.status == 1, "\(command): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: ") && lines[0].contains(said), "\(command): \(result.standardError)")
            #expect(lines.first?.contains(address) == true, "names the address: \(result.standardError)")
        }
        #expect(try cli.lines("list", "--json") == ["[]"], "no memo")
        let audio = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter { !$0.hasPrefix(".") }
        #expect(audio.isEmpty, "nothing half-imported: \(audio)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty, "no download left behind")
    }

    @Test func anImportWhoseServerIsKilledMidwayAndStartedAgainImportsTheWholeMemo() throws {
        let cli = try CLI()
        let talk = try noise(cli, seconds: 4)
        // 768 KB: the first 400 KB at once, then 1 KB/s, until the server is killed and started again without the limit.
        let server = try HTTPServer(rate: "1k", rateAfter: "400k")
        try server.put(talk, as: "talk.wav")
        let importing = try cli.start("import", server.url("talk.wav").absoluteString, "--json")
        // Once the cache lists a part of it: the download is then crawling mid-way.
        let index = cli.cacheHome.appendingPathComponent("voicememo/http/index.json")
        let deadline = Date().addingTimeInterval(20)
        while (try? String(contentsOf: index, encoding: .utf8))?.contains("[[0,") != true, Date() < deadline { usleep(20_000) }
        #expect(importing.isRunning && server.isRunning)
        server.kill()
        usleep(500_000)
        #expect(importing.isRunning, "waits for the server")
        try server.limit(rate: nil)
        try server.start()
        let result = importing.finish()
        #expect(result.status == 0, "\(result.standardError)")
        let memo = try cli.json(result)
        #expect(try Sox.samples(of: try #require(memo["file"] as? String)) == Sox.samples(of: talk.path))
        let resumed = server.requests().filter { $0.range.hasPrefix("bytes=") && !$0.range.hasPrefix("bytes=0-") }
        #expect(!resumed.isEmpty, "resumed with a range request: \(server.requests().map(\.range))")
    }

    @Test func twoImportsOfOneAddressAtOnceBothGetTheWholeFile() throws {
        let cli = try CLI()
        let talk = try noise(cli, seconds: 4)
        let server = try HTTPServer(rate: "384k")
        try server.put(talk, as: "talk.wav")
        let imports = try (0..<2).map { _ in try cli.start("import", server.url("talk.wav").absoluteString, "--json") }
        let expected = try Sox.samples(of: talk.path)
        for running in imports {
            let result = running.finish()
            #expect(result.status == 0, "\(result.standardError)")
            #expect(try Sox.samples(of: try #require(try cli.json(result)["file"] as? String)) == expected)
        }
        let listed = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: cli.cacheHome.appendingPathComponent("voicememo/http/index.json"))) as? [String: Any])
        let entries = try #require(listed["entries"] as? [[String: Any]])
        let size = try Data(contentsOf: talk).count
        #expect(entries.count == 1 && entries[0]["ranges"] as? [[Int]] == [[0, size]], "\(entries)")
    }
}
