import AudioIO
import Foundation
@testable import MemoStore
import TestSupport
import Testing

extension MemoStoreTests {
    private func lockFile(of memo: Memo) -> String {
        store.directory.appendingPathComponent(".\(memo.id).recording").path
    }

    @Test func aRecordingIsListedFromItsStartAndCompleteWhenFinished() throws {
        let ticket = try store.beginRecording(title: "Standup", settings: AudioSettings(format: .caf, channelCount: 2))
        #expect(ticket.memo.state == .recording && ticket.memo.fileName == "\(ticket.memo.id).caf")
        #expect(ticket.fileURL == store.fileURL(of: ticket.memo) && ticket.metadata.title == "Standup")
        // Listed before its file exists, and untouchable while it records.
        #expect(try store.memos() == [ticket.memo])
        #expect(try permissions(lockFile(of: ticket.memo)) == 0o600)
        #expect(throws: MemoStoreError.recordingInProgress("Standup")) { try store.delete([ticket.memo]) }
        #expect(throws: MemoStoreError.recordingInProgress("Standup")) { try store.rename(ticket.memo, to: "x") }

        let summary = try AudioFileConverter.convert(
            contentsOf: tone("a.wav", channels: 2, seconds: 1.5), to: ticket.fileURL, settings: ticket.settings,
            metadata: ticket.metadata, permissions: [.ownerReadWrite])
        let memo = try store.finishRecording(ticket, summary: summary)
        #expect(memo.state == .complete && memo.title == "Standup" && memo.duration == 1.5 && memo.channels == 2)
        #expect(memo.sizeBytes == summary.byteCount && memo.peakDBFS == summary.levels.peak)
        #expect(try store.memos() == [memo])
        #expect(!FileManager.default.fileExists(atPath: lockFile(of: memo)))
        #expect(try store.rename(memo, to: "Standup, Monday").title == "Standup, Monday")
    }

    @Test func aRecordingWhoseProcessIsKilledIsRecoveredWithWhatReachedTheDisk() throws {
        var ticket: RecordingTicket? = try store.beginRecording(title: "Interrupted", settings: AudioSettings())
        let started = try #require(ticket).memo
        // Half a second recorded, the writer left open as a killed recorder leaves it.
        let writer = try AudioFileWriter(
            url: try #require(ticket).fileURL, settings: try #require(ticket).settings,
            metadata: try #require(ticket).metadata, permissions: [.ownerReadWrite])
        let samples = (0..<24000).map { Float(0.5 * sin(2 * Double.pi * 440 * Double($0) / 48000)) }
        try samples.withUnsafeBufferPointer { try writer.write($0) }

        // The recording process: takes the lock as soon as this one lets go of it, then sleeps until killed.
        let recorder = try Tool.start(
            "sh", ["-c", #"exec 9<>"$0" && flock 9 && echo locked && exec sleep 60"#, lockFile(of: started)])
        defer { recorder.kill() }
        ticket = nil
        #expect(recorder.nextLine() == "locked")
        #expect(try store.memos() == [started])
        // A rebuilt index adopts the live recording once, still as a recording.
        try FileManager.default.removeItem(at: store.indexURL)
        #expect(try store.memos().map { [$0.id, $0.title, $0.state.rawValue] } == [[started.id, "Interrupted", "recording"]])
        #expect(!FileManager.default.fileExists(atPath: store.waveformPath(of: started.id)), "a live recording's file still grows")

        #expect(recorder.isRunning)
        recorder.kill()
        let recovered = try #require(try store.memos().first)
        #expect(try store.memos().count == 1)
        #expect(recovered.id == started.id && recovered.title == "Interrupted" && recovered.state == .recovered)
        #expect(recovered.duration == 0.5)
        let sox = try Sox.levels(of: store.fileURL(of: recovered).path, channels: 1)
        #expect(abs(recovered.peakDBFS[0] - sox.peak[0]) < 0.1 && abs(recovered.averageDBFS[0] - sox.rms[0]) < 0.1)
        #expect(recovered.sizeBytes == Int64(try Data(contentsOf: store.fileURL(of: recovered)).count))
        // Its waveform, measured in the pass that read its levels, kept beside it.
        let kept = try Waveform(datRepresentation: Data(contentsOf: URL(fileURLWithPath: store.waveformPath(of: started.id))))
        #expect(try kept == Waveform(measuring: AudioFile(forReading: store.fileURL(of: recovered))) && kept.length == 94)
        #expect(!FileManager.default.fileExists(atPath: lockFile(of: started)))
        try writer.close()
    }

    /// A recording that died before any audio reached its file stays listed, recovered with nothing in it, so that
    /// nobody loses sight of it; one that died before it made its file has no memo to show.
    @Test func aRecordingAbandonedBeforeAnyAudioIsListedAsRecoveredWithNothingInIt() throws {
        var noFile: RecordingTicket? = try store.beginRecording(title: "Nothing", settings: AudioSettings())
        var tickets: [RecordingTicket]? = []
        for (title, settings) in [("Empty", AudioSettings()), ("Header only", AudioSettings()), ("Opus headers", AudioSettings(format: .opus))] {
            let ticket = try store.beginRecording(title: title, settings: settings)
            if title == "Empty" {
                try Data().write(to: ticket.fileURL)
            } else {
                try AudioFileWriter(url: ticket.fileURL, settings: ticket.settings).close()
            }
            tickets?.append(ticket)
        }
        #expect(try store.memos().count == 4)
        noFile = nil
        tickets = nil
        #expect(noFile == nil && tickets == nil)
        let memos = try store.memos()
        #expect(memos.map(\.title) == ["Empty", "Header only", "Opus headers"])
        for memo in memos {
            #expect(memo.state == .recovered && memo.duration == 0 && memo.peakDBFS == [-160] && memo.averageDBFS == [-160], "\(memo)")
            #expect(FileManager.default.fileExists(atPath: store.fileURL(of: memo).path))
        }
        #expect(try store.memos() == memos)
        let hidden = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".recording") }
        #expect(hidden.isEmpty)
    }
}
