import AudioIO
import Foundation
import TestSupport
import Testing

/// An asset's request headers (`AudioAsset.Options`) against a local nginx whose `/auth/` asks for a bearer token and
/// whose access log keeps each request's `Authorization`, `Cookie` and `User-Agent`: they go with every request of
/// the asset, and a redirect to another origin drops the credentials. Rendered offline, compared sample for sample.
@Suite(.timeLimit(.minutes(1))) struct RemoteHeaderTests {
    let noise: NoiseTalk

    init() throws {
        noise = try NoiseTalk()
    }

    /// Options that sign in to `server`'s `/auth/`.
    func signedIn(to server: HTTPServer) -> AudioAsset.Options {
        AudioAsset.Options(httpHeaderFields: ["Authorization": server.authorization])
    }

    /// The ways an address is read: a file, a player, an item of a queue (loaded through its asset).
    enum Reader: String, CaseIterable, Sendable {
        case audioFile, audioPlayer, playerItem
    }

    /// Every sample of `url` with `options`, read by `reader`.
    ///
    /// - Throws: The `AudioFileError` that opening, or the player's status, says.
    func samples(of url: URL, options: AudioAsset.Options, by reader: Reader) async throws -> [Float] {
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        switch reader {
        case .audioFile:
            let file = try AudioFile(forReading: url, options: options, cache: noise.cache)
            return try file.read(frameCount: Int(file.frameCount))
        case .audioPlayer:
            let player = try AudioPlayer(contentsOf: url, options: options, cache: noise.cache)
            player.currentDevice = renderer.device
            if !player.play(), case .failed(.file(let error)) = player.status { throw error }
            return renderer.render(frameCount: noise.expected.count)
        case .playerItem:
            let item = PlayerItem(asset: AudioAsset(url: url, options: options, cache: noise.cache))
            let queue = QueuePlayer(items: [item])
            queue.currentDevice = renderer.device
            try await until { item.status != .unknown }
            if case .failed(.file(let error)) = item.status { throw error }
            #expect(queue.play())
            return renderer.render(frameCount: noise.expected.count)
        }
    }

    /// Read again without the header, the file is refused although the cache holds it whole: the server says no, it is
    /// not gone.
    @Test(arguments: Reader.allCases)
    func anAddressThatAsksForATokenPlaysWithItAndIsRefusedWithout(reader: Reader) async throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let address = server.url("auth/talk.wav")
        let played = try await samples(of: address, options: signedIn(to: server), by: reader)
        #expect(firstDifference(played, noise.expected) == nil)
        #expect(try await eventually { noise.cache.byteCount == 960_044 }, "kept whole: \(noise.cache.byteCount) bytes")
        let refused = AudioFileError(path: address.absoluteString, reason: .downloadFailed(.forbidden(status: 401)))
        await #expect(throws: refused) { _ = try await samples(of: address, options: AudioAsset.Options(), by: reader) }
        // nginx logs a response once it has finished it, which may be a moment after the client has read its head.
        #expect(try await eventually { server.requests().contains { $0.status == 401 && $0.authorization == nil } },
                "\(server.requests().map(\.status))")
        let requests = server.requests()
        #expect(requests.allSatisfy { $0.status == 401 || $0.authorization == server.authorization }, "\(requests.map(\.status))")
    }

    @Test func theTokenGoesWithEveryRangeRequestAndAfterTheServerIsBack() async throws {
        // The first 300 KB (9.6 s) at once, then 1 KB/s: the download is mid-way whenever the test looks.
        let server = try HTTPServer(rate: "1k", rateAfter: "300k")
        try server.put(noise.talk, as: "talk.wav")
        let renderer = try OfflineRenderer(sampleRate: 16000, channelCount: 1)
        let player = try AudioPlayer(contentsOf: server.url("auth/talk.wav"), options: signedIn(to: server), cache: noise.cache)
        player.currentDevice = renderer.device
        #expect(player.play())
        let rendering = Rendering { renderer.render(frameCount: 30 * 16000) }
        #expect(try await eventually {
            (player.loadedTimeRanges.first?.upperBound ?? 0) > 9 && player.isPlaybackBufferEmpty && !player.isPlaybackLikelyToKeepUp
        })
        server.kill()
        try server.limit(rate: nil)
        try server.start()
        let played = await rendering.samples
        #expect(firstDifference(played, noise.expected) == nil, "every sample, across the outage")
        let requests = server.requests()
        let resumed = requests.filter { $0.range.hasPrefix("bytes=") && !$0.range.hasPrefix("bytes=0-") }
        #expect(!resumed.isEmpty, "resumed with a range request: \(requests.map(\.range))")
        #expect(requests.allSatisfy { $0.authorization == server.authorization && $0.status == 206 }, "\(requests.map { "\($0.status) \($0.range)" })")
    }

    @Test func aRedirectToTheSameOriginKeepsTheHeadersAndOneToAnotherDropsAuthorizationAndCookie() async throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let options = AudioAsset.Options(
            httpHeaderFields: ["Authorization": server.authorization, "Cookie": "session=memo"], httpUserAgent: "MemoTests/1.0")
        // /moved/auth/talk.wav to /auth/talk.wav, which asks for the token, on the same origin.
        let same = try await samples(of: server.url("moved/auth/talk.wav"), options: options, by: .audioFile)
        #expect(firstDifference(same, noise.expected) == nil)
        // /away/talk.wav to /talk.wav on the other port: another origin.
        let away = try await samples(of: server.url("away/talk.wav"), options: options, by: .audioFile)
        #expect(firstDifference(away, noise.expected) == nil)
        let requests = server.requests()
        let first = requests.filter { $0.port == server.port }
        let other = requests.filter { $0.port == server.otherPort }
        #expect(first.contains { $0.status == 301 } && first.contains { $0.status == 302 } && first.contains { $0.path == "/auth/talk.wav" })
        #expect(first.allSatisfy { $0.authorization == server.authorization && $0.cookie == "session=memo" && $0.userAgent == "MemoTests/1.0" })
        #expect(!other.isEmpty && other.allSatisfy { $0.authorization == nil && $0.cookie == nil && $0.userAgent == "MemoTests/1.0" })
        // Another origin that asks for the token does not get it.
        let refused = AudioFileError(path: server.url("away/auth/talk.wav").absoluteString, reason: .downloadFailed(.forbidden(status: 401)))
        await #expect(throws: refused) { _ = try await samples(of: server.url("away/auth/talk.wav"), options: options, by: .audioFile) }
    }

    @Test(arguments: [
        (["Authorization": "Bearer secret\r\nX-Injected: 1"], "Authorization"), (["": "secret"], ""),
        (["Bad Name": "secret"], "Bad Name"), (["range": "bytes=0-1"], "range"),
        (["Authorization": "Bearer secret", "authorization": "Bearer secret"], "authorization"),
    ])
    func aFieldThatCannotBeSentFailsBeforeAnyRequestWithoutSayingItsValue(fields: [String: String], name: String) async throws {
        let server = try HTTPServer()
        try server.put(noise.talk, as: "talk.wav")
        let address = server.url("talk.wav")
        let invalid = AudioFileError(path: address.absoluteString, reason: .downloadFailed(.invalidHeaderField(name)))
        for reader in Reader.allCases {
            await #expect(throws: invalid, "\(reader)") { _ = try await samples(of: address, options: AudioAsset.Options(httpHeaderFields: fields), by: reader) }
        }
        #expect(!"\(invalid)".contains("secret") && !"\(invalid)".contains("bytes=0-1"))
        let agent = AudioAsset.Options(httpUserAgent: "Memo\nX-Injected: 1")
        await #expect(throws: AudioFileError(path: address.absoluteString, reason: .downloadFailed(.invalidHeaderField("User-Agent")))) {
            _ = try await samples(of: address, options: agent, by: .audioPlayer)
        }
        #expect(server.requests().isEmpty, "nothing sent")
    }
}
