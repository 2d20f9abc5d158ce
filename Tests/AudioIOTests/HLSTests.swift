@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// An HLS playlist (VOD) plays from its address: FFmpeg's HLS demuxer reads the playlist, and each segment is opened
/// as an address of its own, with the playlist's headers and in its cache, never by FFmpeg's own HTTP client.
@Suite(.timeLimit(.minutes(1))) struct HLSTests {
    let scratch: ScratchDirectory
    let server: HTTPServer
    /// 12 s of stereo noise at 48 kHz, as ffmpeg cut it into AAC segments of 2 s.
    let playlist = "talk.m3u8"

    init() throws {
        scratch = try ScratchDirectory()
        server = try HTTPServer()
        let segments = scratch.file("hls")
        try FileManager.default.createDirectory(at: segments, withIntermediateDirectories: true)
        try Sox.synth(to: scratch.path("talk.wav"), rate: 48000, channels: 2, seconds: 12, "whitenoise")
        try Tool.output("ffmpeg", [
            "-v", "error", "-i", scratch.path("talk.wav"), "-c:a", "aac", "-b:a", "128k", "-f", "hls", "-hls_time", "2",
            "-hls_playlist_type", "vod", "-hls_segment_filename", segments.path + "/talk%03d.ts", segments.path + "/talk.m3u8",
        ])
        for name in try FileManager.default.contentsOfDirectory(atPath: segments.path) {
            try server.put(segments.appendingPathComponent(name), as: name)
        }
    }

    /// The segments ffmpeg wrote.
    var segmentCount: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path("hls"))) ?? []).filter { $0.hasSuffix(".ts") }.count
    }

    @Test func aPlaylistReadsAsFFmpegDecodesItWithItsDurationAndSeeks() throws {
        let cache = RemoteCache(directory: scratch.file("cache"))
        // Behind a sign-in: the segments are asked for with the playlist's token.
        let options = AudioAsset.Options(httpHeaderFields: ["Authorization": server.authorization])
        let file = try AudioFile(forReading: server.url("auth/" + playlist), options: options, cache: cache)
        #expect(file.format == .aac && file.sampleRate == 48000 && file.channelCount == 2)
        #expect(abs(file.duration - 12) < 0.1, "\(file.duration)")
        let samples = try file.read(frameCount: 13 * 48000)
        let ffmpegs = try FFmpeg.samples(of: scratch.path("hls/talk.m3u8"), in: scratch)
        #expect(samples.count == ffmpegs.count, "every frame: \(samples.count / 2) and ffmpeg's \(ffmpegs.count / 2)")
        #expect(zip(samples, ffmpegs).allSatisfy { abs($0 - $1) < 1e-5 }, "FFmpeg's own decoding")
        try file.seek(toFrame: 8 * 48000)
        let after = try file.read(frameCount: 4800)
        #expect(zip(after, ffmpegs[(8 * 48000 * 2)...]).allSatisfy { abs($0 - $1) < 1e-5 }, "the frames at 8 s")
        // Every segment came through the cache, signed in, each downloaded once.
        let segments = server.requests().filter { $0.path.hasSuffix(".ts") }
        let described = segments.map { "\($0.path) \($0.status) \($0.bodyBytes)" }
        #expect(Set(segments.map(\.path)).count == segmentCount, "\(described)")
        #expect(segments.allSatisfy { $0.authorization == server.authorization }, "\(described)")
        let sizes = try FileManager.default.contentsOfDirectory(atPath: scratch.path("hls")).filter { $0.hasSuffix(".ts") }
            .reduce(Int64(0)) { $0 + (try FileManager.default.attributesOfItem(atPath: scratch.path("hls/" + $1))[.size] as! Int64) }
        #expect(segments.reduce(0) { $0 + $1.bodyBytes } == sizes, "each segment downloaded once: \(described)")
        // Listed as the one address that was opened, its segments counted in it.
        let items = cache.items
        #expect(items.map(\.url) == [server.url("auth/" + playlist)] && items.first?.partCount == segmentCount, "\(items)")
        #expect((items.first?.loadedBytes ?? 0) > sizes, "the playlist and every segment: \(items)")
    }

    @Test func aSegmentThatCannotBeHadFailsTheReadInOneLine() throws {
        try FileManager.default.removeItem(at: server.root.appendingPathComponent("talk003.ts"))
        let file = try AudioFile(forReading: server.url(playlist), cache: RemoteCache(directory: scratch.file("cache")))
        #expect(throws: AudioFileError(path: server.url(playlist).absoluteString, reason: .downloadFailed(.notFound(status: 404)))) {
            _ = try file.read(frameCount: 13 * 48000)
        }
    }

    @Test func aPlayerPlaysAPlaylistToItsEnd() async throws {
        let rig = try PlaybackRig()
        let player = try AudioPlayer(contentsOf: server.url(playlist))
        player.currentDevice = rig.device
        #expect(try await rig.playToEnd([player]) == [true])
        #expect(abs(player.duration - 12) < 0.1)
        let played = try await rig.deviceSamples(atLeast: 12 * 48000 - 4800)
        #expect(played.left.count >= 12 * 48000 - 4800)
    }

    @Test func aLivePlaylistPlaysFromItsWindowAsItMovesUntilItEnds() async throws {
        // 1-s segments, numbered by their tone; the window is four of them, moved on one a second.
        let live = try LivePlaylist(count: 16, seconds: 1, window: 4, server: server, scratch: scratch)
        let mover = live.move()
        defer { mover.cancel() }

        let file = try AudioFile(forReading: live.url, cache: RemoteCache(directory: scratch.file("cache")))
        #expect(file.isLive && file.duration == .infinity)
        let start = file.framePosition
        var frames = 0
        while case let read = try file.read(frameCount: 4800).count / 2, read > 0 { frames += read }
        // From the window's last three at the start to the end: the segments after the first window came as it moved.
        let asked = server.requests()
        let fetched = Set(asked.map(\.path).filter { $0.hasSuffix(".ts") })
        #expect(fetched.contains("/" + live.segments.last!.name), "the last segment, published last: \(fetched.sorted())")
        #expect(asked.filter { $0.path == "/live.m3u8" }.count >= 4, "the playlist read again as it moved")
        #expect(!file.isLive && file.frameCount == start + Int64(frames), "it ended where the playlist said it ends, on its time line")
        #expect(frames >= 14 * 48000 && frames <= 16 * 48000, "\(frames) frames: segments 1 to 15, from three before the first window's end")
    }
}
