@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// AAC-LC in M4A written through FFmpeg's own encoder and muxer: what ffprobe reads of it, its exact length and tags,
/// and a file cut short while it was written (fragmented MP4) made whole again.
@Suite struct M4AFileTests {
    let metadata = AudioMetadata(
        title: "Standup — 週報", creationDate: Date(timeIntervalSince1970: 1_709_633_472), artist: "Ann Example",
        album: "Team", comment: "first take", markers: [AudioMarker(framePosition: 24000, name: "Intro"), AudioMarker(framePosition: 50000)])

    @Test func anM4AIsAACLCOfItsExactLengthWithItsTagsAndChapters() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 1.5, "sine 1000")
        let url = scratch.file("tone.m4a")
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("tone.wav"), to: url, settings: AudioSettings(format: .aac), metadata: metadata)
        #expect(summary.frameCount == 72000)
        let stream = try FFprobe.codec(of: url.path)
        #expect(stream.codec == "aac" && stream.profile == "LC" && stream.frames == 72000)
        let (container, _, tags) = try FFprobe.tags(of: url.path)
        #expect(container.contains("mp4"))
        #expect(tags["title"] == metadata.title && tags["artist"] == "Ann Example" && tags["album"] == "Team" && tags["comment"] == "first take")
        #expect(tags["date"] == "2024-03-05T10:11:12Z" && tags["creation_time"] == "2024-03-05T10:11:12.000000Z")
        // QuickTime chapters start at 0: an untitled one holds the place before the first marker.
        let chapters = try FFprobe.chapters(of: url.path)
        #expect(chapters.map { ($0.start * 48000).rounded() } == [0, 24000, 50000] && chapters.map(\.title) == ["", "Intro", ""])

        let file = try AudioFile(forReading: url)
        #expect(file.format == .aac && file.frameCount == 72000 && file.sampleRate == 48000)
        #expect(file.metadata.title == metadata.title && file.metadata.creationDate == metadata.creationDate)
        #expect(file.metadata.artist == "Ann Example" && file.metadata.album == "Team" && file.metadata.comment == "first take")
        // The movie's time is in frames: chapters are exact to the frame.
        #expect(file.metadata.markers == metadata.markers)
        let levels = try file.measureLevels()
        #expect(abs(levels.average[0] - -9.03) < 0.2, "\(levels)")
    }

    @Test(arguments: [(1, 32000, 48000.0), (2, 128_000, 44100)])
    func theEncoderHitsTheAskedBitRate(channels: Int, bitRate: Int, rate: Double) throws {
        let scratch = try ScratchDirectory()
        let noise = Array(repeating: "pinknoise", count: channels).joined(separator: " ")
        try Sox.synth(to: scratch.path("noise.wav"), rate: Int(rate), channels: channels, seconds: 5, noise)
        let url = scratch.file("noise.m4a")
        let summary = try AudioFileConverter.convert(
            contentsOf: scratch.file("noise.wav"), to: url,
            settings: AudioSettings(format: .aac, sampleRate: rate, channelCount: channels, bitRate: bitRate))
        let measured = Double(summary.byteCount * 8) / summary.duration
        #expect(abs(measured - Double(bitRate)) / Double(bitRate) < 0.15, "\(measured) b/s for \(bitRate)")
        #expect(try FFprobe.audio(of: url.path) == (Int(5 * rate), Int(rate), channels))
    }

    @Test func settingsAACCannotTakeAreRefusedSayingWhatItTakes() {
        #expect(throws: AudioSettingsError.aacSampleRate(22000)) { try AudioSettings(format: .aac, sampleRate: 22000).validate() }
        #expect(throws: AudioSettingsError.channelCount(6, allowed: 1...2, format: .aac)) { try AudioSettings(format: .aac, channelCount: 6).validate() }
        #expect(throws: AudioSettingsError.aacBitRate(300_000, allowed: 16000...256_000)) {
            try AudioSettings(format: .aac, bitRate: 300_000).validate()
        }
        #expect(throws: AudioSettingsError.aacBitRate(64000, allowed: 16000...48000)) {
            try AudioSettings(format: .aac, sampleRate: 8000, bitRate: 64000).validate()
        }
        #expect(throws: AudioSettingsError.bitDepth(.int24, format: .aac)) { try AudioSettings(format: .aac, bitDepth: .int24).validate() }
    }

    /// What a recording leaves on the disk while it is written: the writer is open, its fragments written out.
    @Test func aRecordingCutMidFragmentIsMadeWholeUpToItsLastWholeFragment() throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 3, "sine 1000")
        let source = try AudioFile(forReading: scratch.file("tone.wav")).read(frameCount: 144_000)
        let url = scratch.file("recording.m4a")
        let writer = try AudioFileWriter(url: url, settings: AudioSettings(format: .aac), metadata: metadata)
        // 2.3 s in blocks of 0.1 s, as a recorder writes: fragments cut each half second.
        for block in 0..<23 {
            try source[(block * 4800)..<((block + 1) * 4800)].withUnsafeBufferPointer { try writer.write($0) }
        }
        try writer.synchronize()
        let written = try Data(contentsOf: url)
        try writer.close()

        // Cut anywhere past the first fragment: what is readable is copied whole; the tags were in the header.
        for cut in [written.count, written.count - 1, written.count - 700, written.count * 2 / 3] {
            let cutURL = scratch.file("cut-\(cut).m4a")
            try written.prefix(cut).write(to: cutURL)
            let repair = try AudioFile.repairCutRecording(at: cutURL)
            let probed = try FFprobe.codec(of: cutURL.path)
            let file = try AudioFile(forReading: cutURL)
            #expect(probed.codec == "aac" && probed.frames == Int(file.frameCount), "cut at \(cut)")
            #expect(cut == written.count ? repair == .repaired(droppedByteCount: 0) : repair != .intact, "cut at \(cut): \(repair)")
            // Whole packets of 1024 frames, less the encoder's priming; at most a fragment lost (and what the encoder still
            // held: a few packets), and never more than was written.
            let seconds = Double(file.frameCount) / 48000
            #expect(file.frameCount % 1024 == 0 && seconds <= 2.3 && seconds > (cut == written.count ? 2.3 - 0.1 : 1.0),
                    "cut at \(cut): \(file.frameCount) frames")
            #expect(file.metadata.title == metadata.title && file.metadata.artist == "Ann Example")
            #expect(try AudioFile.repairCutRecording(at: cutURL) == .intact)
            // The audio is what was written, in its place, to within the codec's loss.
            let decoded = try file.read(frameCount: Int(file.frameCount))
            let error = zip(decoded, source).map { Double($0 - $1) * Double($0 - $1) }.reduce(0, +) / Double(decoded.count)
            let power = source.prefix(decoded.count).map { Double($0) * Double($0) }.reduce(0, +) / Double(decoded.count)
            #expect(10 * log10(power / error) > 20, "cut at \(cut): SNR")
        }
        // Nothing but the header: no audio to keep.
        try written.prefix(600).write(to: scratch.file("header.m4a"))
        #expect(try AudioFile.repairCutRecording(at: scratch.file("header.m4a")) == .noAudio)
    }
}
