import Foundation
import TestSupport
import Testing

/// What `voicememo play URL` and `voicememo import URL` show for each network fault a user meets: one `voicememo: …`
/// line naming the address and what happened, and exit code 1; or, for a fault the download recovers from, the memo
/// whole. Nothing of the server's own bytes reaches the terminal raw.
@Suite(.timeLimit(.minutes(1))) struct NetworkFaultTests {
    /// 2 s of stereo noise at 48 kHz, 16-bit: 384,044 bytes.
    private func talk(_ cli: CLI) throws -> URL {
        let file = cli.scratch.file("talk.wav")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 2, "whitenoise whitenoise")
        return file
    }

    /// Runs `play` (on the null device) and `import` of `address` at once, with `extra` arguments.
    private func playAndImport(_ cli: CLI, _ address: String, _ extra: [String] = []) throws -> [String: ToolResult] {
        let running = try [
            ("play", cli.start(["play", address, "--device", "null"] + extra, with: [:])),
            ("import", cli.start(["import", address, "--json"] + extra, with: [:])),
        ]
        return Dictionary(uniqueKeysWithValues: running.map { ($0.0, $0.1.finish()) })
    }

    /// Every command failed with one line, exit code 1, naming the address and saying `said`.
    private func expectOneLine(_ results: [String: ToolResult], address: String, saying said: String) {
        for (command, result) in results.sorted(by: { $0.key < $1.key }) {
            #expect(result.status == 1, "\(command): \(result.standardError)")
            let lines = result.standardError.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == 1, "\(command): \(result.standardError)")
            // `play` says first that it cannot play the memo.
            #expect(lines.first?.hasPrefix("voicememo: ") == true && lines.first?.contains("cannot download '\(address)': \(said)") == true,
                    "\(command): \(result.standardError)")
        }
    }

    enum Failure: String, CaseIterable, Sendable {
        case shortContentLength, longContentLength, rangeNotSatisfiable, redirectLoop, serverError
    }

    @Test(arguments: Failure.allCases)
    func aFaultyServerFailsInOneLine(failure: Failure) throws {
        let cli = try CLI()
        let bytes = try Data(contentsOf: talk(cli))
        let (fault, said): (FaultyHTTPServer.Fault, String) = switch failure {
        // Play and import share the cache: the one that starts second may ask for the rest of the file only, whose
        // lengths are then told.
        case .shortContentLength:
            (.contentLengthOffBy(bytes: -1000, wholeFileAs200: false), "the server gave the length ")
        case .longContentLength:
            (.contentLengthOffBy(bytes: 1000, wholeFileAs200: true), "the server gave the length ")
        case .rangeNotSatisfiable:
            (.rangeNotSatisfiable, "the server cannot give the file's bytes (HTTP 416, Range Not Satisfiable); ")
        case .redirectLoop:
            (.redirectLoop, "the server redirected the request more than 10 times (a redirect loop); check the address")
        case .serverError:
            (.hostileHead, "the server answered with an error (HTTP 500); try again later")
        }
        let server = try FaultyHTTPServer(body: bytes, fault: fault)
        let address = server.url("talk.wav").absoluteString
        let results = try playAndImport(cli, address)
        expectOneLine(results, address: address, saying: said)
        for (command, result) in results {
            if failure == .shortContentLength || failure == .longContentLength {
                #expect(result.standardError.hasSuffix(": its Content-Length is wrong; try again later\n"), "\(command): \(result.standardError)")
            }
            // A hostile server's reason phrase, Content-Type and fields hold escape sequences: none is printed.
            #expect(!(result.standardError + result.standardOutput).contains("\u{1B}"), "\(command): \(result.standardError)")
            #expect(!result.standardError.contains("owned"), "\(command): \(result.standardError)")
        }
        #expect(try cli.lines("list", "--json") == ["[]"], "no memo")
    }

    /// A server that closes the connection at the same byte every time: the resumes bring nothing, and after 8 tries
    /// (some 16 s of back-off) the download gives up.
    @Test func aServerThatClosesMidBodyEveryTimeFailsInOneLine() throws {
        let cli = try CLI()
        let server = try FaultyHTTPServer(body: try Data(contentsOf: talk(cli)), fault: .closeAt(offset: 200_000, ignoringRanges: false))
        let address = server.url("talk.wav").absoluteString
        expectOneLine(try playAndImport(cli, address), address: address, saying: "the connection broke and could not be resumed (")
        #expect(try cli.lines("list", "--json") == ["[]"], "no memo")
    }

    /// Faults the download recovers from: a connection closed mid-body, a transfer that stalls a second (in the
    /// library's tests; here, closed), the whole file answering a resume. The memo is the file, sample for sample.
    @Test(arguments: [
        FaultyHTTPServer.Fault.closeAfter(bytes: 100_000, responses: 2), .ignoresRangesAfterFirst,
    ])
    func aFaultTheDownloadRecoversFromImportsAndPlaysTheWholeFile(fault: FaultyHTTPServer.Fault) throws {
        let cli = try CLI()
        let file = try talk(cli)
        let server = try FaultyHTTPServer(body: try Data(contentsOf: file), fault: fault)
        let address = server.url("talk.wav").absoluteString
        let imported = try cli.run("import", address, "--json")
        #expect(imported.status == 0 && imported.standardError.isEmpty, "\(imported.standardError)")
        #expect(try Sox.samples(of: try #require(try cli.json(imported)["file"] as? String)) == Sox.samples(of: file.path))
        let played = try cli.run("play", address, "--device", "null")
        #expect(played.status == 0 && played.standardError.isEmpty, "\(played.standardError)")
    }

    /// The library's 15-s connect timeout, as a user meets it (the library's tests shorten it; here it is waited out).
    @Test func aServerThatNeverAcceptsTheConnectionTimesOutInOneLine() throws {
        let cli = try CLI()
        let port = try UnansweredPort()
        let address = port.url("talk.wav").absoluteString
        let started = ContinuousClock.now
        expectOneLine(try playAndImport(cli, address), address: address, saying: "the server did not answer the connection within 15 s; ")
        #expect(ContinuousClock.now - started < .seconds(30), "not retried")
    }

    @Test func anUntrustedCertificateSaysHowToTrustItAndPlaysWithCAFile() throws {
        let cli = try CLI()
        let file = try talk(cli)
        let server = try HTTPServer(tls: true)
        try server.put(file, as: "talk.wav")
        let address = server.secureURL("talk.wav").absoluteString
        expectOneLine(try playAndImport(cli, address), address: address, saying: "the server's certificate is not trusted (TLS: ")
        let trusted = try playAndImport(cli, address, ["--ca-file", try #require(server.certificateAuthority?.path)])
        for (command, result) in trusted {
            #expect(result.status == 0 && result.standardError.isEmpty, "\(command): \(result.standardError)")
        }
        let memo = try cli.json(try #require(trusted["import"]))
        #expect(try Sox.samples(of: try #require(memo["file"] as? String)) == Sox.samples(of: file.path))
        let missing = try cli.run("play", address, "--ca-file", cli.scratch.path("missing.pem"))
        #expect(missing.status == 2, "\(missing.standardError)")
        #expect(missing.standardError.contains("--ca-file '\(cli.scratch.path("missing.pem"))' is not a file this can read"), "\(missing.standardError)")
    }
}
