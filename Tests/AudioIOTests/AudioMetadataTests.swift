import AudioIO
import Foundation
import TestSupport
import Testing

/// Tags and markers written into every format this library writes, read back by it and by ffprobe.
@Suite struct AudioMetadataTests {
    static let metadata = AudioMetadata(
        title: "Standup", creationDate: Date(timeIntervalSince1970: 1_709_633_472), artist: "Ann Example", album: "Team",
        comment: "first take", markers: [AudioMarker(framePosition: 4800, name: "Intro"), AudioMarker(framePosition: 14400)])

    /// What each format keeps: every tag but AIFF's album and date (its one free text holds the comment) and MP3's date
    /// (a year), and markers in WAV, Opus and M4A.
    @Test(arguments: AudioFileFormat.allCases.filter(\.isWritable))
    func everyFormatKeepsWhatItHasAPlaceFor(format: AudioFileFormat) throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let url = scratch.file("tagged.\(format.fileExtension)")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("tone.wav"), to: url, settings: AudioSettings(format: format), metadata: Self.metadata)
        let read = try AudioFile(forReading: url).metadata
        #expect(read.title == "Standup" && read.artist == "Ann Example" && read.comment == "first take", "\(read)")
        #expect(read.album == (format == .aiff ? nil : "Team"))
        // MP3's ID3 keeps the year alone, which is no date; AIFF has no date.
        #expect(read.creationDate == ([.aiff, .mp3].contains(format) ? nil : Self.metadata.creationDate), "\(format)")
        let markers: [AudioMarker] = switch format {
        case .wav, .aac, .opus: Self.metadata.markers
        default: []
        }
        #expect(read.markers == markers, "\(format)")
        let tags = try FFprobe.tags(of: url.path).tags
        // FFmpeg calls AIFF's `AUTH` the author.
        #expect(tags["title"] == "Standup" && tags[format == .aiff ? "author" : "artist"] == "Ann Example", "\(format): \(tags)")
    }
}
