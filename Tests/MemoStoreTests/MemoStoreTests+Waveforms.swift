import AudioIO
import Foundation
import MemoStore
import TestSupport
import Testing

/// Waveforms kept beside memos: written when a memo comes in, from what passed through, and measured again when
/// missing, damaged or stale.
@Suite struct MemoStoreWaveformTests {
    let scratch: ScratchDirectory
    let store: MemoStore

    init() throws {
        scratch = try ScratchDirectory()
        store = try MemoStore(directory: scratch.file("store"), stateDirectory: scratch.file("state"))
    }

    func imported(seconds: Double = 1, format: AudioFileFormat = .wav) throws -> Memo {
        let source = scratch.path("tone-\(UUID().uuidString.prefix(6)).wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: seconds, "sine 300 tremolo 2 80")
        return try store.importAudio(from: URL(fileURLWithPath: source), settings: AudioSettings(format: format, channelCount: 1))
    }

    /// The kept waveform file of `memo`: named from its id, hidden.
    func keptFile(of memo: Memo) -> URL {
        store.directory.appendingPathComponent(".\(memo.id).waveform.dat")
    }

    @Test(arguments: [AudioFileFormat.wav, .opus])
    func anImportKeepsTheWaveformBesideTheMemoNamedFromItsID(format: AudioFileFormat) throws {
        let memo = try imported(format: format)
        let kept = try Waveform(datRepresentation: Data(contentsOf: keptFile(of: memo)))
        #expect(try store.waveform(of: memo) == kept)
        #expect(try FileManager.default.attributesOfItem(atPath: keptFile(of: memo).path)[.posixPermissions] as? Int == 0o600)
        let measured = try Waveform(measuring: AudioFile(forReading: store.fileURL(of: memo)))
        if format == .wav {
            #expect(kept == measured)
        } else {
            // Measured before the encoding: each point's peak within 1.5 dB of the decoded file's.
            #expect(kept.length == measured.length)
            let far = (0..<kept.length).filter { pixel in
                abs(AudioLevels.decibels(kept.peak(ofPixels: pixel..<(pixel + 1))) - AudioLevels.decibels(measured.peak(ofPixels: pixel..<(pixel + 1)))) > 1.5
            }
            #expect(far.count <= kept.length / 50, "\(far.count) of \(kept.length) points differ by more than 1.5 dB")
        }
    }

    @Test func aMissingOrDamagedOrStaleWaveformIsMeasuredAgainAndKept() throws {
        let memo = try imported()
        let measured = try store.waveform(of: memo)
        for damage in [Data(), Data("not a waveform".utf8), Data(Waveform(sampleRate: 48000, samplesPerPixel: 256, channelCount: 1, data: [0, 1]).datRepresentation())] {
            try damage.write(to: keptFile(of: memo))
            #expect(try store.waveform(of: memo) == measured)
            #expect(try Data(contentsOf: keptFile(of: memo)) == Data(measured.datRepresentation()), "kept again")
        }
        try FileManager.default.removeItem(at: keptFile(of: memo))
        #expect(try store.waveform(of: memo) == measured)
        #expect(FileManager.default.fileExists(atPath: keptFile(of: memo).path))
    }

    @Test func aFinerWaveformThanTheKeptOneIsMeasuredFromTheAudio() throws {
        let memo = try imported(seconds: 2)
        let kept = try store.waveform(of: memo)
        // A kept waveform of a long memo is coarser: one of 1024 frames a point stands for it here.
        try Data(kept.zoomedOut(by: 4).datRepresentation()).write(to: keptFile(of: memo))
        #expect(try store.waveform(of: memo).samplesPerPixel == 1024, "it fits the audio: it is kept")
        #expect(try store.waveform(of: memo, samplesPerPixel: 2048) == kept.zoomedOut(by: 8), "coarser: from the kept one")
        #expect(try store.waveform(of: memo, samplesPerPixel: 512) == kept.zoomedOut(by: 2), "finer: measured from the audio")
    }

    @Test func deletingAMemoDeletesItsWaveformAndALeftOverOneIsRemoved() throws {
        let memo = try imported()
        let other = try imported()
        try store.delete([memo])
        #expect(!FileManager.default.fileExists(atPath: keptFile(of: memo).path))
        // A waveform whose audio is gone (its memo deleted by hand) goes when the store is next changed.
        try FileManager.default.removeItem(at: store.fileURL(of: other))
        _ = try imported()
        #expect(!FileManager.default.fileExists(atPath: keptFile(of: other).path))
    }

    @Test func aWaveformIsWrittenOutsideTheStoreOnlyAndNeverOverAFile() throws {
        let memo = try imported(seconds: 2)
        let target = scratch.file("memo.dat")
        let written = try store.exportWaveform(memo, to: target, bits: .eight, samplesPerPixel: 512)
        #expect(written.samplesPerPixel == 512 && written.length == 188)
        #expect(try Data(contentsOf: target) == Data(written.datRepresentation(bits: .eight)))
        #expect(throws: AudioFileError.self) { try store.exportWaveform(memo, to: target) }
        #expect(try store.exportWaveform(memo, to: target, replacingExisting: true).samplesPerPixel == 256)
        #expect(throws: MemoStoreError.exportIntoStore(path: store.fileURL(of: memo).path)) {
            try store.exportWaveform(memo, to: store.fileURL(of: memo), replacingExisting: true)
        }
        #expect(try AudioFile(forReading: store.fileURL(of: memo)).frameCount == 96000, "the memo is untouched")
    }
}
