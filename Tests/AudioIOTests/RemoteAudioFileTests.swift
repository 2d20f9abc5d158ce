import AudioIO
import Foundation
import TestSupport
import Testing

/// Files read from a local nginx as they download: every format voicememo plays from a file reads the same samples
/// over http as from the disk.
@Suite(.timeLimit(.minutes(1))) struct RemoteAudioFileTests {
    let scratch: ScratchDirectory
    let cache: RemoteCache

    init() throws {
        scratch = try ScratchDirectory()
        cache = RemoteCache(directory: scratch.file("cache"))
    }

    /// Two seconds of stereo noise at 48 kHz in `format`, made by sox (Opus and M4A by ffmpeg).
    func noise(_ format: String) throws -> URL {
        let wav = scratch.file("noise-source.wav")
        if !FileManager.default.fileExists(atPath: wav.path) {
            try Sox.synth(to: wav.path, rate: 48000, channels: 2, seconds: 2, "whitenoise whitenoise")
        }
        let file = scratch.file("noise.\(format)")
        switch format {
        case "opus": try Tool.output("ffmpeg", ["-v", "error", "-i", wav.path, "-c:a", "libopus", "-b:a", "96k", file.path])
        case "m4a": try Tool.output("ffmpeg", ["-v", "error", "-i", wav.path, "-c:a", "aac", "-b:a", "128k", file.path])
        default: try Tool.output("sox", [wav.path, file.path])
        }
        return file
    }

    @Test(arguments: ["wav", "caf", "flac", "mp3", "ogg", "opus", "m4a"])
    func anAddressReadsTheSamplesOfTheFile(format: String) throws {
        let server = try HTTPServer()
        let local = try noise(format)
        try server.put(local, as: "noise.\(format)")
        let file = try AudioFile(forReading: local)
        let remote = try AudioFile(forReading: server.url("noise.\(format)"), cache: cache)
        #expect(remote.format == file.format && remote.frameCount == file.frameCount && remote.channelCount == 2)
        #expect(remote.byteCount == file.byteCount)
        let expected = try file.read(frameCount: Int(file.frameCount))
        let read = try remote.read(frameCount: Int(remote.frameCount))
        #expect(read.count == expected.count && firstDifference(read, expected) == nil)
        // A seek back into what was read, and one near the end.
        for frame: Int64 in [48000, file.frameCount - 1000] {
            try file.seek(toFrame: frame)
            try remote.seek(toFrame: frame)
            #expect(firstDifference(try remote.read(frameCount: 500), try file.read(frameCount: 500)) == nil, "at frame \(frame)")
        }
    }

    @Test func aRedirectIsFollowedForEveryRange() throws {
        let server = try HTTPServer()
        let local = try noise("flac")
        try server.put(local, as: "noise.flac")
        let file = try AudioFile(forReading: local)
        let remote = try AudioFile(forReading: server.url("moved/noise.flac"), cache: cache)
        try file.seek(toFrame: 60000)
        try remote.seek(toFrame: 60000)
        #expect(firstDifference(try remote.read(frameCount: 36000), try file.read(frameCount: 36000)) == nil)
        #expect(server.requests().contains { $0.path == "/moved/noise.flac" && $0.status == 301 })
    }
}
