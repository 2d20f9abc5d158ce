@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// The network's faults, each against a server that commits it (``FaultyHTTPServer``, a port that never accepts, an
/// nginx on a private CA): each fails with the ``DownloadError`` named for it, or is recovered from with every sample
/// right. The timeouts and back-off are shortened (`AudioAsset.Options.timeouts`) so each test takes a second or two.
@Suite(.timeLimit(.minutes(1))) struct NetworkFaultTests {
    let scratch: ScratchDirectory
    let cache: RemoteCache
    /// 4 s of white noise, 16 kHz mono 16-bit: 128,044 bytes.
    let talk: URL
    let bytes: Data
    let expected: [Float]
    /// Options that wait 0.5 s for a connection, 1 s for a byte, and 20 ms before a retry.
    let quick: AudioAsset.Options

    init() throws {
        scratch = try ScratchDirectory()
        cache = RemoteCache(directory: scratch.file("cache"))
        talk = scratch.file("talk.wav")
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 4, "whitenoise")
        bytes = try Data(contentsOf: talk)
        let file = try AudioFile(forReading: talk)
        expected = try file.read(frameCount: Int(file.frameCount))
        var options = AudioAsset.Options()
        options.timeouts = TransferTimeouts(connect: .milliseconds(500), stall: .seconds(1), firstRetry: .milliseconds(20))
        quick = options
    }

    /// Every sample of `url`, read as it downloads.
    func samples(of url: URL, options: AudioAsset.Options? = nil) throws(AudioFileError) -> [Float] {
        let file = try AudioFile(forReading: url, options: options ?? quick, cache: cache)
        return try file.read(frameCount: Int(file.frameCount))
    }

    /// The download error reading `url` fails with, or nil when it reads.
    func failure(of url: URL, options: AudioAsset.Options? = nil) -> DownloadError? {
        do {
            _ = try samples(of: url, options: options)
            return nil
        } catch {
            guard case .downloadFailed(let why) = error.reason else { return .unsupportedAddress("not a download error: \(error)") }
            return why
        }
    }

    @Test func aConnectionClosedMidBodyIsResumedWhereItBrokeWithEverySampleRight() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .closeAfter(bytes: 30_000, responses: 3))
        #expect(firstDifference(try samples(of: server.url("talk.wav")), expected) == nil)
        // The first request asks for the read-ahead a reader gets (256 KiB); once the length is known, each range is
        // asked for to the end.
        #expect(server.requestedRanges == ["bytes=0-262143", "bytes=30000-128043", "bytes=60000-128043", "bytes=90000-128043"])
    }

    @Test func aServerThatClosesAtOnePointEveryTimeFailsAsALostConnectionAndOpensOnceItIsMended() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .closeAt(offset: 50_000, ignoringRanges: false))
        let failed = failure(of: server.url("talk.wav"))
        guard case .connectionLost = failed else {
            Issue.record("\(String(describing: failed))")
            return
        }
        #expect(failed?.description.hasPrefix("the connection broke and could not be resumed (") == true, "\(String(describing: failed))")
        // The first request brought bytes; the 7 after it, none: 8 tries without a new byte.
        #expect(server.requestedRanges.filter { $0 == "bytes=50000-128043" }.count == 7, "\(server.requestedRanges)")
        // Opening again is trying again, from the bytes the cache kept.
        server.fault = .none
        #expect(firstDifference(try samples(of: server.url("talk.wav")), expected) == nil)
        #expect(server.requestedRanges.last == "bytes=50000-128043")
    }

    /// Each try downloads the same first bytes again: they are not progress, and the tries end. (Watched rather than
    /// read: a download that tried forever would leave a read waiting past any time limit.)
    @Test func aServerWithoutRangesThatClosesAtOnePointEveryTimeFailsAsALostConnection() async throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .closeAt(offset: 50_000, ignoringRanges: true))
        let asset = try RemoteAsset.open(server.url("talk.wav"), options: quick, cache: cache)
        #expect(try await eventually { asset.progress.failure != nil }, "\(server.requestedRanges)")
        let failed = asset.progress.failure
        guard case .connectionLost = failed else {
            Issue.record("\(String(describing: failed))")
            return
        }
        // The first request, the range that finds ranges ignored, then the whole file from the start 6 times more.
        #expect(server.requestedRanges == ["bytes=0-262143", "bytes=50000-128043"] + Array(repeating: "-", count: 6), "\(server.requestedRanges)")
    }

    @Test func aTransferThatStallsIsDroppedAndResumedWithEverySampleRight() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .stallAfter(bytes: 40_000, responses: 1))
        let started = ContinuousClock.now
        #expect(firstDifference(try samples(of: server.url("talk.wav")), expected) == nil)
        #expect(server.requestedRanges == ["bytes=0-262143", "bytes=40000-128043"])
        // libcurl measures the rate over its last 5 s: a stall after a burst is seen up to 5 s late.
        #expect(ContinuousClock.now - started < .seconds(15), "dropped after the 1-s stall timeout, not the 30-s one")
    }

    /// A player waits out a transfer that broke or stalled, and plays on once it is resumed: rendered offline (every
    /// frame waits for its bytes), sample for sample.
    @Test(arguments: [FaultyHTTPServer.Fault.stallAfter(bytes: 40_000, responses: 1), .closeAfter(bytes: 30_000, responses: 3)])
    func aPlayerPlaysOnWhenTheNetworkRecovers(fault: FaultyHTTPServer.Fault) throws {
        let server = try FaultyHTTPServer(body: bytes, fault: fault)
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try AudioPlayer(contentsOf: server.url("talk.wav"), options: quick, cache: cache)
        player.currentDevice = renderer.device
        #expect(player.play(), "\(player.status)")
        #expect(firstDifference(renderer.render(frameCount: expected.count), expected) == nil)
        #expect(server.requestedRanges.count > 1, "resumed: \(server.requestedRanges)")
    }

    @Test func aServerThatAcceptsAndSendsNothingStalls() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .silent)
        #expect(failure(of: server.url("talk.wav")) == .stalled(seconds: 1))
        #expect(DownloadError.stalled(seconds: 30).description == "the server stopped sending for 30 s and did not resume; try again later")
    }

    @Test func aPortThatNeverAcceptsTimesOutConnecting() throws {
        let port = try UnansweredPort()
        let started = ContinuousClock.now
        #expect(failure(of: port.url("talk.wav")) == .connectTimedOut(seconds: 0.5))
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(DownloadError.connectTimedOut(seconds: 15).description.hasPrefix("the server did not answer the connection within 15 s; "))
    }

    /// The lengths a server can get wrong: a `Content-Length` shorter or longer than the range its `Content-Range`
    /// names, and a whole file (a 200) longer than it is, which a range from its real end then shows (416).
    @Test(arguments: [(-1000, false), (1000, false), (1000, true)])
    func aWrongContentLengthFailsNamingBothLengths(offBy: Int, wholeFileAs200: Bool) throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .contentLengthOffBy(bytes: offBy, wholeFileAs200: wholeFileAs200))
        let size = Int64(bytes.count)
        #expect(failure(of: server.url("talk.wav")) == .wrongLength(said: size + Int64(offBy), sent: size), "\(server.requestedRanges)")
    }

    @Test func aRangeNotSatisfiableFailsAtOnce() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .rangeNotSatisfiable)
        #expect(failure(of: server.url("talk.wav")) == .rangeNotSatisfiable)
        #expect(server.requestedRanges == ["bytes=0-262143"], "not tried again")
    }

    /// The whole file answering a request from an offset is written from the start, not at the offset, and the rest is
    /// read from it without ranges.
    @Test func aWholeFileAnsweringARangeRequestIsWrittenFromTheStart() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .ignoresRangesAfterFirst)
        #expect(firstDifference(try samples(of: server.url("talk.wav")), expected) == nil)
        #expect(server.requestedRanges.prefix(2) == ["bytes=0-262143", "bytes=4096-128043"], "\(server.requestedRanges)")
        let data = try #require(try cacheDataFile())
        #expect(try Data(contentsOf: data) == bytes, "the cache holds the file as it is")
    }

    @Test func aRedirectLoopFailsAsTooManyRedirects() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .redirectLoop)
        #expect(failure(of: server.url("talk.wav")) == .tooManyRedirects)
        #expect(server.requestedRanges.count == 11, "the first request and 10 redirects")
    }

    /// A status text, `Content-Type` and field full of escape sequences reach no message.
    @Test func aHostileServersHeadReachesNoMessage() throws {
        let server = try FaultyHTTPServer(body: bytes, fault: .hostileHead)
        let failed = try #require(failure(of: server.url("talk.wav")))
        #expect(failed == .serverError(status: 500))
        #expect(!failed.description.contains("\u{1B}") && !failed.description.contains("owned"))
    }

    @Test func aCertificateFromAPrivateAuthorityIsUntrustedUntilItsCAFileIsGiven() throws {
        let server = try HTTPServer(tls: true)
        try server.put(talk, as: "talk.wav")
        let failed = failure(of: server.secureURL("talk.wav"))
        guard case .untrustedCertificate(let why) = failed else {
            Issue.record("\(String(describing: failed))")
            return
        }
        #expect(why.contains("certificate"), "\(why)")
        #expect(failed?.description.contains("give its certificate as a CA file") == true)
        // A CA file that is not there fails as the secure connection, naming it (before anything is cached: bytes the
        // cache holds whole are used when the server cannot be asked).
        var trusting = quick
        trusting.certificateAuthorityFile = scratch.file("missing.pem")
        let missing = failure(of: server.secureURL("talk.wav"), options: trusting)
        guard case .secureConnectionFailed(let account) = missing else {
            Issue.record("\(String(describing: missing))")
            return
        }
        #expect(account.contains("missing.pem"), "\(account)")
        trusting.certificateAuthorityFile = server.certificateAuthority
        #expect(firstDifference(try samples(of: server.secureURL("talk.wav"), options: trusting), expected) == nil)
    }

    /// The data file the cache holds (one address).
    private func cacheDataFile() throws -> URL? {
        try FileManager.default.contentsOfDirectory(at: cache.directory, includingPropertiesForKeys: nil).first { $0.pathExtension == "data" }
    }
}
