import AudioIO
import Foundation
import TestSupport
import Testing

/// Tags and markers written into every format this library writes, read back by it and by ffprobe.
@Suite struct AudioMetadataTests {
    static let metadata = AudioMetadata(
        title: "Standup", creationDate: Date(timeIntervalSince1970: 1_709_633_472), artist: "Ann Example", album: "Team",
        comment: "first take", markers: [AudioMarker(framePosition: 4800, name: "Intro"), AudioMarker(framePosition: 14400)])

    /// What each format keeps: every tag but AIFF's album and date (its one free text holds the comment), and markers in
    /// all but CAF and AIFF. (With markers, FFmpeg writes an MP3's tags anew: its date whole, not the year LAME writes.)
    @Test(arguments: AudioFileFormat.allCases.filter(\.isWritable))
    func everyFormatKeepsWhatItHasAPlaceFor(format: AudioFileFormat) throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 0.5, "sine 440")
        let url = scratch.file("tagged.\(format.fileExtension)")
        _ = try AudioFileConverter.convert(
            contentsOf: scratch.file("tone.wav"), to: url, settings: AudioSettings(format: format), metadata: Self.metadata)
        let file = try AudioFile(forReading: url)
        let read = file.metadata
        #expect(file.frameCount == 24000, "\(format): the same audio, copied with its markers")
        if format == .flac { #expect(try Sox.samples(of: url.path) == Sox.samples(of: scratch.path("tone.wav")), "bit for bit") }
        #expect(read.title == "Standup" && read.artist == "Ann Example" && read.comment == "first take", "\(read)")
        #expect(read.album == (format == .aiff ? nil : "Team"))
        // AIFF has no date.
        #expect(read.creationDate == (format == .aiff ? nil : Self.metadata.creationDate), "\(format)")
        #expect(read.markers == (format == .caf || format == .aiff ? [] : Self.metadata.markers), "\(format)")
        if ![.caf, .aiff].contains(format) {
            // FFmpeg reads them too: WAV cue points with their labels, MP4 and ID3 chapters, the CHAPTER comments of
            // Vorbis comments.
            let chapters = try FFprobe.chapters(of: url.path).filter { $0.start > 0 }
            #expect(chapters.map(\.start) == [0.1, 0.3] && chapters.first?.title == "Intro", "\(format): \(chapters)")
        }
        let tags = try FFprobe.tags(of: url.path).tags
        // FFmpeg calls AIFF's `AUTH` the author.
        #expect(tags["title"] == "Standup" && tags[format == .aiff ? "author" : "artist"] == "Ann Example", "\(format): \(tags)")
    }
}
