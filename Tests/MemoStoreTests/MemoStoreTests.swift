import AudioIO
import Foundation
import MemoStore
import TestSupport
import Testing

@Suite struct MemoStoreTests {
    let scratch: ScratchDirectory
    let store: MemoStore

    init() throws {
        scratch = try ScratchDirectory()
        store = try MemoStore(directory: scratch.file("store"), stateDirectory: scratch.file("state"))
    }

    func tone(_ name: String, rate: Int = 48000, channels: Int = 1, seconds: Double = 1) throws -> URL {
        try Sox.synth(to: scratch.path(name), rate: rate, channels: channels, seconds: seconds, "sine 440")
        return scratch.file(name)
    }

    func permissions(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
    }

    /// Vorbis, MP3 and AIFF are for export: a memo is kept as WAV, CAF, Opus, AAC or FLAC, and asking for another keeps
    /// nothing.
    @Test(arguments: [AudioFileFormat.vorbis, .mp3, .aiff])
    func memosAreKeptOnlyAsWAVCAFOpusAACOrFLAC(format: AudioFileFormat) throws {
        let source = try tone("a.wav")
        #expect(throws: MemoStoreError.unstoredFormat(format)) { try store.importAudio(from: source, settings: AudioSettings(format: format)) }
        #expect(throws: MemoStoreError.unstoredFormat(format)) { try store.beginRecording(title: "T", settings: AudioSettings(format: format)) }
        #expect(try store.memos().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).allSatisfy { !$0.hasSuffix(".\(format.rawValue)") })
    }

    @Test func theLocationFollowsTheEnvironment() {
        #expect(MemoStore.defaultDirectory(environment: ["VOICEMEMO_HOME": "/a", "XDG_DATA_HOME": "/b", "HOME": "/c"]).path == "/a")
        #expect(MemoStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/b", "HOME": "/c"]).path == "/b/voicememo")
        #expect(MemoStore.defaultDirectory(environment: ["HOME": "/c"]).path == "/c/.local/share/voicememo")
        #expect(MemoStore.defaultDirectory(environment: ["VOICEMEMO_HOME": "", "HOME": "/c"]).path == "/c/.local/share/voicememo")
    }

    @Test func recordingsArePrivate() throws {
        let memo = try store.importAudio(from: tone("a.wav"))
        #expect(try permissions(store.directory.path) == 0o700)
        #expect(try permissions(store.fileURL(of: memo).path) == 0o600)
        #expect(try permissions(store.indexURL.path) == 0o600)
        #expect(try permissions(store.localStateDirectory.path) == 0o700)
    }

    @Test func anImportedWAVIsKeptBitForBitAndDescribed() throws {
        let source = try tone("Meeting notes.wav", rate: 44100, channels: 2, seconds: 2)
        let memo = try store.importAudio(from: source)
        #expect(memo.title == "Meeting notes" && memo.format == .wav && memo.state == .complete)
        #expect(memo.sampleRate == 44100 && memo.channels == 2 && memo.duration == 2)
        #expect(memo.fileName == "\(memo.id).wav" && memo.id.count == 12)
        #expect(try Sox.samples(of: source.path) == Sox.samples(of: store.fileURL(of: memo).path))
        let sox = try Sox.levels(of: store.fileURL(of: memo).path, channels: 2)
        #expect(zip(memo.peakDBFS, sox.peak).allSatisfy { abs($0 - $1) < 0.1 })
        #expect(zip(memo.averageDBFS, sox.rms).allSatisfy { abs($0 - $1) < 0.1 })
        #expect(memo.sizeBytes == Int64(try Data(contentsOf: store.fileURL(of: memo)).count))
        #expect(try store.memos() == [memo])
    }

    @Test(arguments: ["voice", "lecture", "music", "lossless", "m4a"])
    func theIndexSaysWhatTheFileReadsAs(preset: String) throws {
        let memo = try store.importAudio(
            from: tone("a.wav", rate: 22050, seconds: 1.5), settings: AudioPreset.named(preset).settings)
        let file = try AudioFile(forReading: store.fileURL(of: memo))
        #expect(file.sampleRate == memo.sampleRate && file.channelCount == memo.channels && file.format == memo.format)
        #expect(abs(file.duration - memo.duration) < 1e-9 && abs(memo.duration - 1.5) < 1e-3)
    }

    @Test func aTitleIsNeverAPath() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "../../x")
        #expect(memo.title == "../../x")
        #expect(store.fileURL(of: memo).deletingLastPathComponent().path == store.directory.path)
        #expect(!FileManager.default.fileExists(atPath: scratch.url.deletingLastPathComponent().appendingPathComponent("x").path))
    }

    @Test func memosAreFoundByIDPrefixOrTitle() throws {
        let first = try store.importAudio(from: tone("a.wav"), title: "Shopping")
        let second = try store.importAudio(from: tone("b.wav"), title: "Ideas")
        #expect(try store.memo(matching: first.id) == first)
        #expect(try store.memo(matching: String(second.id.prefix(11))) == second)
        #expect(try store.memo(matching: "Ideas") == second)
        #expect(throws: MemoStoreError.noMatch("Nothing")) { try store.memo(matching: "Nothing") }
        // Three characters are too few to be a prefix, whatever they match, and the error says so.
        #expect(throws: MemoStoreError.prefixTooShort(String(first.id.prefix(3)))) { try store.memo(matching: String(first.id.prefix(3))) }
        let twin = try store.importAudio(from: tone("c.wav"), title: "Ideas")
        #expect {
            try store.memo(matching: "Ideas")
        } throws: { error in
            guard case MemoStoreError.ambiguous(_, let candidates) = error else { return false }
            return candidates.count == 2 && candidates.contains { $0.hasPrefix(twin.id) }
        }
    }

    @Test func aMissingIndexIsRebuiltFromTheFilesThemselves() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Rebuilt — ✓")
        try FileManager.default.removeItem(at: store.indexURL)
        let rebuilt = try store.memos()
        #expect(rebuilt.count == 1)
        #expect(rebuilt.first?.id == memo.id && rebuilt.first?.title == "Rebuilt — ✓")
        #expect(rebuilt.first.map { abs($0.createdAt.timeIntervalSince(memo.createdAt)) < 1 } == true)
        #expect(rebuilt.first?.peakDBFS == memo.peakDBFS)
    }

    @Test func aCorruptIndexIsKeptAsideAndRebuilt() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Still here", settings: AudioSettings(format: .opus))
        let index = store.indexURL
        try Data("{\"schemaVersion\": 1, \"memos\": [ {\"id\": tru".utf8).write(to: index)
        #expect(try store.memos().map(\.title) == [memo.title])
        let names = try FileManager.default.contentsOfDirectory(atPath: store.localStateDirectory.path)
        let aside = try #require(names.first { $0.hasPrefix("memos.json.broken-") })
        #expect(try String(contentsOf: store.localStateDirectory.appendingPathComponent(aside), encoding: .utf8).hasSuffix("tru"))
    }

    @Test func everyDamagedIndexIsKeptAsideEvenTwoInOneSecond() throws {
        _ = try store.importAudio(from: tone("a.wav"), title: "Still here")
        let index = store.indexURL
        for damage in ["first damage", "second damage", "third damage"] {
            try Data(damage.utf8).write(to: index)
            #expect(try store.memos().map(\.title) == ["Still here"])
        }
        let copies = try FileManager.default.contentsOfDirectory(atPath: store.localStateDirectory.path).filter { $0.hasPrefix("memos.json.broken-") }
        let kept = try Set(copies.map { try String(contentsOf: store.localStateDirectory.appendingPathComponent($0), encoding: .utf8) })
        #expect(kept == ["first damage", "second damage", "third damage"])
    }

    /// A rebuilt index has every title, however long: what a file cannot hold whole is kept beside it.
    @Test func aRebuiltIndexKeepsEveryTitleWhateverItsLength() throws {
        let long = String(repeating: "A title that goes on — ", count: 150) + "and ends"
        let wide = String(repeating: "長いタイトル🎙", count: 200)
        var expected: [String: String] = [:]
        for (number, format) in [AudioFileFormat.wav, .caf, .opus].enumerated() {
            let memo = try store.importAudio(from: tone("\(number).wav"), title: long + "\(number)", settings: AudioSettings(format: format))
            expected[memo.id] = memo.title
            // The file itself holds as much as it can read back, cut between characters.
            let stored = try #require(try AudioFile(forReading: store.fileURL(of: memo)).metadata.title)
            #expect(stored.utf8.count <= AudioMetadata.maximumStoredTitleBytes && memo.title.hasPrefix(stored))
        }
        let wideMemo = try store.importAudio(from: tone("wide.wav"), title: wide)
        expected[wideMemo.id] = wide
        let renamed = try store.importAudio(from: tone("r.wav"), title: "Before", settings: AudioSettings(format: .opus))
        try store.rename(renamed, to: long + " renamed")
        expected[renamed.id] = long + " renamed"
        let short = try store.importAudio(from: tone("s.wav"), title: "Short")
        expected[short.id] = "Short"
        try FileManager.default.removeItem(at: store.indexURL)
        try FileManager.default.removeItem(at: store.localStateDirectory.appendingPathComponent(".memos.cache"))
        #expect(Dictionary(uniqueKeysWithValues: try store.memos().map { ($0.id, $0.title) }) == expected)
        // A short title needs nothing beside its file, and a deleted memo leaves nothing.
        let hidden = try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".title") }
        #expect(hidden.count == 5 && !hidden.contains(".\(short.id).title"))
        try store.delete(try store.memos())
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).filter { $0.hasSuffix(".title") }.isEmpty)
    }

    @Test func anIndexFromANewerVersionIsLeftAlone() throws {
        let index = store.indexURL
        let newer = Data(#"{"schemaVersion": 99, "memos": []}"#.utf8)
        try FileManager.default.createDirectory(at: store.localStateDirectory, withIntermediateDirectories: true)
        try newer.write(to: index)
        #expect(throws: MemoStoreError.newerSchema(path: index.path, version: 99)) { try store.memos() }
        #expect(try Data(contentsOf: index) == newer)
    }

    @Test func filesAddedOrRemovedBehindItsBackAreNoticed() throws {
        let kept = try store.importAudio(from: tone("a.wav"), title: "Kept")
        let removed = try store.importAudio(from: tone("b.wav"), title: "Removed")
        try FileManager.default.removeItem(at: store.fileURL(of: removed))
        _ = try AudioFileConverter.convert(
            contentsOf: tone("c.wav"), to: store.directory.appendingPathComponent("0123456789ab.caf"),
            settings: AudioSettings(format: .caf), metadata: AudioMetadata(title: "Dropped in"))
        #expect(Set(try store.memos().map(\.title)) == ["Kept", "Dropped in"])
        #expect(try store.memo(matching: "0123").format == .caf)
        #expect(try store.memo(matching: kept.id) == kept)
    }

    @Test func concurrentImportsLoseNothing() async throws {
        let source = try tone("a.wav", seconds: 0.2)
        let store = self.store
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for number in 0..<8 {
                group.addTask { try store.importAudio(from: source, title: "Memo \(number)").id }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(ids.count == 8)
        #expect(Set(try store.memos().map(\.id)) == ids)
    }

    @Test func exportConvertsAndNamesTheFormatByExtension() throws {
        let memo = try store.importAudio(from: tone("a.wav", rate: 44100, seconds: 2), title: "Talk")
        let summary = try store.export(memo, to: scratch.file("talk.opus"))
        #expect(summary.sampleRate == 48000 && summary.frameCount == 96000)
        let file = try AudioFile(forReading: scratch.file("talk.opus"))
        #expect(file.format == .opus && file.metadata.title == "Talk")
        #expect(throws: MemoStoreError.exportIntoStore(path: store.fileURL(of: memo).path)) { try store.export(memo, to: store.fileURL(of: memo)) }
    }
}
