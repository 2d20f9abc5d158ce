import AudioIO
import Foundation
import MemoStore
import TestSupport
import Testing

/// `enhance`: a new memo, the original untouched.
@Suite struct MemoStoreEnhancementTests {
    let scratch: ScratchDirectory
    let store: MemoStore

    init() throws {
        scratch = try ScratchDirectory()
        store = try MemoStore(directory: scratch.file("store"), stateDirectory: scratch.file("state"))
    }

    @Test(arguments: [AudioFileFormat.wav, .opus])
    func enhancingMakesANewMemoAndLeavesTheOriginalAsItWas(format: AudioFileFormat) throws {
        let source = scratch.path("noisy.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: 2, "pinknoise", volume: 0.05)
        let original = try store.importAudio(from: URL(fileURLWithPath: source), title: "Hallway", settings: AudioSettings(format: format))
        let bytes = try Data(contentsOf: store.fileURL(of: original))
        let enhanced = try store.enhance(original)
        #expect(enhanced.id != original.id && enhanced.title == "Hallway (enhanced)" && enhanced.createdAt == original.createdAt)
        #expect(enhanced.format == format && enhanced.sampleRate == 48000 && enhanced.channels == 1 && abs(enhanced.duration - 2) < 0.001)
        #expect(try store.memos().map(\.id) == [original.id, enhanced.id])
        #expect(try store.memos().first == original, "the original's entry as it was")
        #expect(try Data(contentsOf: store.fileURL(of: original)) == bytes, "the original's file as it was")
        #expect(enhanced.averageDBFS[0] < original.averageDBFS[0] - 6, "noise alone: \(original.averageDBFS) → \(enhanced.averageDBFS)")
        #expect(try store.waveform(of: enhanced) == Waveform(datRepresentation: Data(contentsOf: store.directory.appendingPathComponent(".\(enhanced.id).waveform.dat"))))
        let titled = try store.enhance(original, title: "Hallway, clean")
        #expect(titled.title == "Hallway, clean")
    }

    @Test func anEnhancedMemoKeepsTheOriginalsTagsAndMarkers() throws {
        let noisy = scratch.path("noisy.wav"), marked = scratch.file("marked.wav")
        try Sox.synth(to: noisy, rate: 48000, channels: 1, seconds: 2, "pinknoise", volume: 0.05)
        let markers = [AudioMarker(framePosition: 24000, name: "Intro"), AudioMarker(framePosition: 72000)]
        _ = try AudioFileConverter.convert(
            contentsOf: URL(fileURLWithPath: noisy), to: marked, settings: AudioSettings(),
            metadata: AudioMetadata(title: "Hallway", artist: "Ann", album: "Team", comment: "take 2", markers: markers))
        let enhanced = try store.enhance(try store.importAudio(from: marked))
        #expect(enhanced.artist == "Ann" && enhanced.album == "Team" && enhanced.comment == "take 2" && enhanced.markers == markers)
        // In its file too, where another program finds them.
        let file = try AudioFile(forReading: store.fileURL(of: enhanced))
        #expect(file.metadata.title == "Hallway (enhanced)" && file.metadata.artist == "Ann" && file.metadata.markers == markers)
    }
}
