@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// HLS playlists of AAC and MP3 in MPEG-TS segments and of Opus in fragmented MP4 (what `ffmpeg -f hls` makes with
/// `-c:a aac`, `-c:a libmp3lame`, and `-c:a libopus -hls_segment_type fmp4`), VOD and live, play to their ends with
/// every frame, as ffmpeg decodes the same segments.
@Suite(.timeLimit(.minutes(1))) struct HLSCodecTests {
    let scratch: ScratchDirectory
    let server: HTTPServer

    init() throws {
        scratch = try ScratchDirectory()
        server = try HTTPServer()
    }

    @Test(arguments: LivePlaylist.Codec.allCases)
    func aVODPlaylistReadsEveryFrameAsFFmpegDecodesIt(codec: LivePlaylist.Codec) throws {
        let segments = scratch.file("vod")
        try FileManager.default.createDirectory(at: segments, withIntermediateDirectories: true)
        try Sox.synth(to: scratch.path("noise.wav"), rate: 48000, channels: 2, seconds: 6, "whitenoise")
        try Tool.output("ffmpeg", [
            "-v", "error", "-i", scratch.path("noise.wav")] + codec.arguments + ["-f", "hls", "-hls_time", "2",
            "-hls_playlist_type", "vod", "-hls_segment_filename", segments.path + "/vod%03d." + codec.segmentExtension,
            segments.path + "/vod.m3u8",
        ])
        for name in try FileManager.default.contentsOfDirectory(atPath: segments.path) {
            try server.put(segments.appendingPathComponent(name), as: name)
        }
        let file = try AudioFile(forReading: server.url("vod.m3u8"), cache: RemoteCache(directory: scratch.file("cache")))
        #expect(file.format == AudioFileFormat(rawValue: codec.rawValue) && !file.isLive)
        let samples = try file.read(frameCount: 8 * 48000)
        let ffmpegs = try FFmpeg.samples(of: segments.path + "/vod.m3u8", in: scratch)
        #expect(samples.count == ffmpegs.count, "every frame: \(samples.count / 2) and ffmpeg's \(ffmpegs.count / 2)")
        #expect(zip(samples, ffmpegs).allSatisfy { abs($0 - $1) < 1e-5 }, "ffmpeg's own decoding")
        #expect(file.frameCount == Int64(samples.count / 2))
    }

    @Test(arguments: LivePlaylist.Codec.allCases)
    func aLivePlaylistReadsEveryFrameFromItsLiveEdgeToItsEnd(codec: LivePlaylist.Codec) throws {
        // Eight 1-s segments, a window of four moved on each second: read from segment 1, three before the first
        // window's end.
        let live = try LivePlaylist(count: 8, seconds: 1, window: 4, codec: codec, server: server, scratch: scratch)
        let mover = live.move()
        defer { mover.cancel() }
        let file = try AudioFile(forReading: live.url, cache: RemoteCache(directory: scratch.file("cache")))
        #expect(file.isLive && file.format == AudioFileFormat(rawValue: codec.rawValue))
        var samples: [Float] = []
        while case let read = try file.read(frameCount: 4800), !read.isEmpty { samples += read }
        let ffmpegs = try live.ffmpegSamples(from: 1)
        #expect(samples.count == ffmpegs.count, "every frame: \(samples.count / 2) and ffmpeg's \(ffmpegs.count / 2)")
        #expect(zip(samples, ffmpegs).allSatisfy { abs($0 - $1) < 1e-5 }, "ffmpeg's own decoding of segments 1 to 7")
        #expect(!file.isLive, "it ended where the playlist said it ends")
    }
}
