import Foundation
import TestSupport
import Testing

/// `--header 'Name: value'` on `play` and `import`, against a local nginx whose `/auth/` asks for a bearer token, with
/// the download cache in the test's own `XDG_CACHE_HOME`.
@Suite(.timeLimit(.minutes(1))) struct HeaderOptionTests {
    /// 3 s of stereo noise at 48 kHz, 16-bit: what the `file` PCM gets back exactly (32-bit, shifted by 16).
    private func noise(_ cli: CLI) throws -> URL {
        let file = cli.scratch.file("talk.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 3, "whitenoise whitenoise")
        return file
    }

    /// Checks that `result` failed with one line naming `address` and saying the server refused it (HTTP 401).
    private func expectRefused(_ result: ToolResult, _ address: String, _ what: String) {
        let lines = result.standardError.split(separator: "\n")
        #expect(result.status == 1, "\(what): \(result.standardError)")
        #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: ") && lines[0].contains(address) && lines[0].contains("refuses to give the file (HTTP 401)"),
                "\(what): \(result.standardError)")
    }

    /// Refused without the header, played and imported with it, and refused again without it once the cache holds
    /// the whole file.
    @Test func anAddressThatAsksForATokenPlaysAndImportsWithTheHeaderOnly() throws {
        let cli = try CLI()
        let talk = try noise(cli)
        let server = try HTTPServer()
        try server.put(talk, as: "talk.wav")
        let address = server.url("auth/talk.wav").absoluteString
        let header = "Authorization: \(server.authorization)"
        expectRefused(try cli.run("play", address, "--device", "null"), address, "play without the header")
        expectRefused(try cli.run("import", address), address, "import without the header")
        let expected = try Sox.samples(of: talk.path)
        let output = cli.scratch.path("out.raw")
        let played = try cli.run("play", address, "--header", header, "--header", "Referer: http://memos.example/", "--device", "file:'\(output)',raw")
        #expect(played.status == 0, "\(played.standardError)")
        let samples = try Data(contentsOf: URL(fileURLWithPath: output)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }.drop { $0 == 0 }
        #expect(samples.count >= expected.count && Array(samples.prefix(expected.count)) == expected, "played every sample")
        // Two addresses play in turn, as a queue's items (the second by a redirect on the same host).
        let queued = cli.scratch.path("queued.raw")
        let queue = try cli.run("play", address, server.url("moved/auth/talk.wav").absoluteString, "--header", header, "--device", "file:'\(queued)',raw")
        #expect(queue.status == 0, "\(queue.standardError)")
        let twice = try Data(contentsOf: URL(fileURLWithPath: queued)).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }.drop { $0 == 0 }
        #expect(twice.count >= 2 * expected.count && Array(twice.prefix(2 * expected.count)) == expected + expected, "played both")
        let imported = try cli.run("import", address, "--header", header, "--json")
        #expect(imported.status == 0, "\(imported.standardError)")
        let memo = try cli.json(imported)
        #expect(memo["duration"] as? Double == 3)
        #expect(try Sox.samples(of: try #require(memo["file"] as? String)) == expected, "the memo is the file, whole")
        expectRefused(try cli.run("play", address, "--device", "null"), address, "play without the header, from the cache")
        expectRefused(try cli.run("import", address), address, "import without the header, from the cache")
        let requests = server.requests()
        #expect(requests.allSatisfy { $0.status == 401 || $0.authorization == server.authorization }, "\(requests.map(\.status))")
        #expect(requests.filter { $0.status == 401 }.count == 4, "\(requests.map(\.status))")
    }

    @Test(arguments: [
        (["Authorization Bearer s3cret"], "--header number 1 has no ':'"),
        (["Referer: http://memos.example/", ": s3cret"], "--header number 2 has no name before its ':'"),
        (["Authorization: Bearer s3cret\nX-Injected: 1"], "--header number 1 has a line break in it"),
        (["Cookie: a=s3cret", "cookie: b=s3cret"], "--header 'cookie' is given twice"),
        (["Bad Name: s3cret"], "--header: the request header field 'Bad Name' cannot be sent"),
        (["Range: bytes=0-1"], "--header: the request header field 'Range' cannot be sent"),
    ])
    func aMalformedHeaderIsAUsageErrorThatNeverSaysItsValue(headers: [String], message: String) throws {
        let cli = try CLI()
        let server = try HTTPServer()
        for command in ["play", "import"] {
            let result = try cli.run([command, server.url("talk.wav").absoluteString] + headers.flatMap { ["--header", $0] }, with: [:])
            #expect(result.status == 2, "\(command): \(result.standardError)")
            let first = result.standardError.split(separator: "\n").first ?? ""
            #expect(first.hasPrefix("Error: \(message)"), "\(command): \(result.standardError)")
            #expect(!result.standardError.contains("s3cret") && !result.standardError.contains("bytes=0-1"), "\(command): \(result.standardError)")
        }
        #expect(server.requests().isEmpty, "nothing sent")
    }
}
