import AudioIO
import Foundation
import Glibc
@testable import MemoStore
import TestSupport
import Testing

/// `.memos.cache`, the binary copy of `memos.json` that makes `list` fast: it reads exactly as the index does,
/// and it is believed only for the very index file it was made from.
extension MemoStoreTests {
    var index: String { store.indexURL.path }
    var cache: String { store.localStateDirectory.appendingPathComponent(".memos.cache").path }

    /// A store of memos with every kind of field: stereo and mono, three formats, a recording under way,
    /// titles with accents, an emoji, a newline, a path and a thousand characters.
    func variedStore() throws -> RecordingTicket {
        _ = try store.importAudio(from: tone("Réunion 🎙.wav", rate: 44100, channels: 2, seconds: 0.5))
        _ = try store.importAudio(from: tone("b.wav", seconds: 0.25), title: "line one\nline two", settings: AudioSettings(format: .opus))
        let caf = try store.importAudio(from: tone("c.wav", rate: 22050, seconds: 0.3), settings: AudioSettings(format: .caf))
        _ = try store.rename(caf, to: String(repeating: "../", count: 333) + "x")
        return try store.beginRecording(title: "Live", settings: AudioSettings())
    }

    @Test func theCacheReadsExactlyAsTheIndexDoes() throws {
        let recording = try variedStore()
        #expect(FileManager.default.fileExists(atPath: cache))
        #expect(try permissions(cache) == 0o600)
        let fromCache = try store.memos()
        try FileManager.default.removeItem(atPath: cache)
        let fromIndex = try store.memos()
        #expect(fromIndex.count == 4 && fromCache == fromIndex)
        // Reading the index made the cache again.
        #expect(FileManager.default.fileExists(atPath: cache))
        #expect(try store.memos() == fromIndex)
        withExtendedLifetime(recording) {}
    }

    @Test func theCacheIsBelievedOnlyForTheIndexFileItWasMadeFrom() throws {
        let truth = try store.importAudio(from: tone("a.wav"), title: "Kept")
        // A cache made for the index as it stands is what the store reads, whatever it says.
        var told = truth
        told.title = "From the cache"
        MemoIndexCache.write(MemoIndex(memos: [told]), at: cache, for: try #require(MemoIndexCache.Identity(path: index)))
        #expect(try store.memos().map(\.title) == ["From the cache"])
        // The index changed in place to the same size, its modification time put back: its change time, which no
        // program sets, still tells, and the index is read.
        let before = try status(of: index)
        try overwriteInPlace(index, replacing: "\"Kept\"", with: "\"Kex2\"")
        try setModificationTime(of: index, to: before.st_mtim)
        #expect(try store.memos().map(\.title) == ["Kex2"])
    }

    @Test func numbersNoMemoHasAreNeverBelievedFromTheCache() throws {
        let truth = try store.importAudio(from: tone("a.wav"), title: "Kept")
        let forgeries: [(inout Memo) -> Void] = [
            { $0.createdAt = Date(timeIntervalSince1970: .nan) }, { $0.createdAt = .distantFuture + 1e12 },
            { $0.duration = .infinity }, { $0.duration = -1 }, { $0.sampleRate = 0 }, { $0.channels = -1 },
            { $0.sizeBytes = -5 }, { $0.peakDBFS = [.nan] }, { $0.averageDBFS = [] },
        ]
        for forge in forgeries {
            var forged = truth
            forge(&forged)
            MemoIndexCache.write(MemoIndex(memos: [forged]), at: cache, for: try #require(MemoIndexCache.Identity(path: index)))
            // The entry is dropped and its file adopted again from its own metadata and samples.
            let memos = try store.memos()
            #expect(memos.map(\.id) == [truth.id] && memos.map(\.title) == ["Kept"])
            #expect(memos.map(\.duration) == [truth.duration] && memos.map(\.createdAt) == [truth.createdAt])
        }
    }

    @Test(arguments: [("duration", 1e300), ("duration", -1), ("sampleRate", 0), ("channels", -1), ("sizeBytes", -5)])
    func anIndexEntryWithNumbersNoMemoHasIsReadAgainFromItsFile(field: String, value: Double) throws {
        let truth = try store.importAudio(from: tone("a.wav"), title: "Kept")
        try editIndex { $0["memos"] = [(($0["memos"] as? [[String: Any]])?.first ?? [:]).merging([field: value]) { $1 }] }
        let memos = try store.memos()
        #expect(memos.map(\.id) == [truth.id] && memos.map(\.title) == ["Kept"] && memos.map(\.duration) == [truth.duration])
    }

    @Test(arguments: [-1, 0])
    func anIndexWithASchemaVersionBelow1IsKeptAsideAndRebuilt(version: Int) throws {
        let truth = try store.importAudio(from: tone("a.wav"), title: "Kept")
        try editIndex { $0["schemaVersion"] = version }
        #expect(try store.memos().map(\.id) == [truth.id])
        let names = try FileManager.default.contentsOfDirectory(atPath: store.localStateDirectory.path)
        #expect(names.contains { $0.hasPrefix("memos.json.broken-") })
    }

    @Test func anIndexListingOneFileTwiceListsItOnce() throws {
        let truth = try store.importAudio(from: tone("a.wav"), title: "Kept")
        try editIndex { $0["memos"] = ($0["memos"] as? [Any] ?? []) + ($0["memos"] as? [Any] ?? []) }
        #expect(try store.memos() == [truth])
    }

    @Test func aDamagedOrForeignCacheIsNeverBelieved() throws {
        let recording = try variedStore()
        let truth = try store.memos()
        let healthy = try Data(contentsOf: URL(fileURLWithPath: cache))
        let other = try MemoStore(directory: scratch.file("other"), stateDirectory: scratch.file("state"))
        _ = try other.importAudio(from: tone("o.wav"), title: "Someone else's")
        let foreign = try Data(contentsOf: other.localStateDirectory.appendingPathComponent(".memos.cache"))
        var flipped = healthy
        flipped[flipped.count / 2] ^= 0x20
        for damaged in [Data(), healthy.prefix(100), healthy.dropLast(), healthy + [0], flipped, foreign] {
            try damaged.write(to: URL(fileURLWithPath: cache))
            #expect(try store.memos() == truth)
            #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == healthy)
        }
        // A FIFO in its place does not hang the store; a link in its place is replaced, not written through.
        try FileManager.default.removeItem(atPath: cache)
        #expect(mkfifo(cache, 0o600) == 0)
        #expect(try store.memos() == truth)
        let outside = scratch.file("outside")
        try foreign.write(to: outside)
        try FileManager.default.removeItem(atPath: cache)
        try FileManager.default.createSymbolicLink(atPath: cache, withDestinationPath: outside.path)
        #expect(try store.memos() == truth)
        #expect(try Data(contentsOf: outside) == foreign)
        #expect(try Data(contentsOf: URL(fileURLWithPath: cache)) == healthy)
        withExtendedLifetime(recording) {}
    }

    /// Rewrites `memos.json` as `change` leaves its JSON object.
    private func editIndex(_ change: (inout [String: Any]) -> Void) throws {
        var object = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: index))) as? [String: Any])
        change(&object)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: index))
    }

    func status(of path: String) throws -> stat {
        var status = stat()
        try #require(stat(path, &status) == 0)
        return status
    }

    private func overwriteInPlace(_ path: String, replacing old: String, with new: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let changed = text.replacingOccurrences(of: old, with: new)
        #expect(changed != text && changed.utf8.count == text.utf8.count)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: Data(changed.utf8))
        try handle.close()
    }

    func setModificationTime(of path: String, to time: timespec) throws {
        let times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), time]  // UTIME_OMIT: the access time stays
        try #require(utimensat(AT_FDCWD, path, times, 0) == 0)
    }
}
