@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// An address's markers and chapters, read from what is downloaded of it through a throttled local nginx: the same as
/// the file's on the disk, for a fraction of its bytes. A WAV keeps its `cue ` chunk after the audio, which costs one
/// range request for the end; an Opus file keeps its chapters in its comment header, an MP3 in ID3 `CHAP` frames at
/// its start, an M4A written for the web (`+faststart`) in its `moov` atom before the audio.
@Suite(.timeLimit(.minutes(1))) struct RemoteMetadataTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// The markers written in each file, at these seconds; the last name is one a terminal must not take as is.
    static let marks: [(seconds: Double, name: String)] = [(1.5, "Intro"), (25.25, "Q & A"), (50.125, "Fin \u{1B}[2J ✓")]

    /// 60 s of noise in `format` with ``marks``: WAV (1.9 MB) and Opus (1.4 MB) written by `AudioFileWriter`, M4A and
    /// MP3 (1.4 MB each) by ffmpeg from an FFMETADATA file of chapters.
    func marked(_ format: String) throws -> URL {
        let file = scratch.file("marked.\(format)")
        let rate = format == "wav" ? 16000.0 : 48000
        let settings = switch format {
        case "opus": AudioSettings(format: .opus, sampleRate: rate, channelCount: 1, bitRate: 192_000)
        default: AudioSettings(format: .wav, sampleRate: rate, channelCount: 1)
        }
        let markers = Self.marks.map { AudioMarker(framePosition: Int64($0.seconds * rate), name: $0.name) }
        let target = format == "wav" || format == "opus" ? file : scratch.file("source.wav")
        let writer = try AudioFileWriter(url: target, settings: settings, metadata: AudioMetadata(markers: markers))
        var generator = SeededGenerator(seed: 7)
        let noise = (0..<Int(60 * rate)).map { _ in Float.random(in: -0.5...0.5, using: &generator) }
        try noise.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        guard target != file else { return file }
        var chapters = ";FFMETADATA1\n"
        for (index, mark) in Self.marks.enumerated() {
            let end = index + 1 < Self.marks.count ? Self.marks[index + 1].seconds : 60
            chapters += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(Int(mark.seconds * 1000))\nEND=\(Int(end * 1000))\ntitle=\(mark.name)\n"
        }
        let metadata = scratch.file("chapters.txt")
        try chapters.write(to: metadata, atomically: true, encoding: .utf8)
        let codec = format == "m4a" ? ["-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart"]
            : ["-c:a", "libmp3lame", "-b:a", "192k", "-id3v2_version", "3"]
        try Tool.output("ffmpeg", ["-v", "error", "-i", target.path, "-i", metadata.path, "-map_metadata", "1", "-map_chapters", "1"]
            + codec + [file.path])
        return file
    }

    @Test(arguments: ["wav", "opus", "m4a", "mp3"])
    func anAddressHasTheMarkersOfItsFileFromAFractionOfItsBytes(format: String) async throws {
        let local = try marked(format)
        let expected = try AudioFile(forReading: local).metadata.markers
        #expect(expected.map(\.name) == Self.marks.map(\.name), "the file itself: \(expected)")
        let server = try HTTPServer(rate: "512k")
        try server.put(local, as: "marked.\(format)")
        let address = server.url("marked.\(format)")

        let file = try AudioFile(forReading: address, cache: RemoteCache(directory: scratch.file("file-cache")))
        #expect(file.metadata.markers == expected)
        let asset = AudioAsset(url: address, cache: RemoteCache(directory: scratch.file("asset-cache")))
        #expect(try await asset.load(.metadata).markers == expected)
        // Long enough for the whole file to come (2.8 s at 512 KB/s), were it fetched.
        try await Task.sleep(for: .seconds(3))
        let size = Int64(try Data(contentsOf: local).count)
        let fetched = asset.bytesDownloaded
        #expect(fetched > 0 && fetched < size / 2, "\(fetched) of \(size) bytes fetched")
        withExtendedLifetime((file, asset)) {}
    }

    @Test func aWAVsCueChunkAfterItsAudioCostsOneRangeRequestForTheEnd() async throws {
        let local = try marked("wav")
        let size = Int64(try Data(contentsOf: local).count)
        let server = try HTTPServer(rate: "512k")
        try server.put(local, as: "marked.wav")
        do {
            let file = try AudioFile(forReading: server.url("marked.wav"), cache: RemoteCache(directory: scratch.file("cache")))
            #expect(file.metadata.markers.count == Self.marks.count)
        }
        // Let go, the file's requests end and are logged.
        #expect(try await eventually { server.requests().count >= 2 })
        let requests = server.requests()
        let tail = requests.filter { $0.range.hasPrefix("bytes=") && (Int64($0.range.dropFirst(6).prefix { $0 != "-" }) ?? 0) > size / 2 }
        #expect(tail.count == 1, "\(requests.map { "\($0.range) \($0.bodyBytes)" })")
        #expect(tail.allSatisfy { $0.bodyBytes < 4096 }, "\(tail.map(\.bodyBytes))")
    }
}
