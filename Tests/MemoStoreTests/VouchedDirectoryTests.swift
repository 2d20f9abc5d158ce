import AudioIO
import Foundation
import Glibc
@testable import MemoStore
import TestSupport
import Testing

/// Once the index is found to list exactly the audio files of a directory that has not changed for a while,
/// `.memos.cache` vouches for that directory and the store does not read it again, until a file comes or goes.
extension MemoStoreTests {
    /// Waits until the store directory's change time, which no program can set back, is two seconds old: as long
    /// as a store must be still before the cache vouches for it.
    func settle() throws {
        let changed = try status(of: store.directory.path).st_ctim.tv_sec
        var now = timespec()
        repeat {
            usleep(100_000)
            clock_gettime(CLOCK_REALTIME, &now)
        } while now.tv_sec - changed < 2
    }

    /// The identity of the store directory that the cache vouches for, if any.
    func vouchedDirectory() throws -> MemoIndexCache.Identity? {
        let identity = try #require(MemoIndexCache.Identity(path: index))
        return try #require(MemoIndexCache.read(at: cache, for: identity)).vouchedDirectory
    }

    var directoryIdentity: MemoIndexCache.Identity? { MemoIndexCache.Identity(path: store.directory.path) }

    /// Writes a cache of the index listing `memos`, and, once the directory has settled, vouches for it.
    func writeVouchedCache(listing memos: [Memo]) throws {
        let indexIdentity = try #require(MemoIndexCache.Identity(path: index))
        MemoIndexCache.write(MemoIndex(memos: memos), at: cache, for: indexIdentity)
        try settle()
        MemoIndexCache.vouch(for: try #require(directoryIdentity), at: cache, for: indexIdentity)
    }

    func copyIntoStore(_ source: URL, id: String) throws {
        try FileManager.default.copyItem(at: source, to: store.directory.appendingPathComponent("\(id).wav"))
    }

    @Test func aSettledDirectoryIsVouchedForAndBelievedUntilAFileComesOrGoes() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Kept")
        // Changed a moment ago: a change to come could get the same time stamp, so nothing is vouched for yet.
        #expect(try store.memos() == [memo])
        #expect(try vouchedDirectory() == nil)
        try settle()
        #expect(try store.memos() == [memo])
        #expect(try vouchedDirectory() == directoryIdentity)

        // Believed without reading the directory: a vouched cache listing a file that is not there is what the store reads.
        var ghost = memo
        ghost.id = "0123456789ab"
        ghost.fileName = "0123456789ab.wav"
        try writeVouchedCache(listing: [memo, ghost])
        #expect(try store.memos().map(\.id) == [memo.id, ghost.id])

        // A file that comes changes the directory: it is read again, the new file adopted and the ghost dropped.
        try copyIntoStore(tone("b.wav", seconds: 2), id: "abcdefabcdef")
        let memos = try store.memos()
        #expect(memos.map(\.id) == [memo.id, "abcdefabcdef"] && memos.last?.duration == 2)
    }

    @Test func aForgedEntryInAVouchedCacheIsNeverBelieved() throws {
        let memo = try store.importAudio(from: tone("a.wav"), title: "Kept")
        var forged = memo
        forged.id = "0123456789ab"
        forged.fileName = "../0123456789ab.wav"
        try writeVouchedCache(listing: [memo, forged])
        // A file name that leads outside the store is checked even when the directory is not read: the entry goes.
        #expect(try store.memos() == [memo])
    }

    @Test(arguments: ["copied in", "removed", "renamed"])
    func everyFileThatComesOrGoesInAVouchedDirectoryIsSeen(change: String) throws {
        let kept = try store.importAudio(from: tone("a.wav"), title: "Kept")
        let other = try store.importAudio(from: tone("b.wav", seconds: 2), title: "Other")
        try settle()
        _ = try store.memos()
        #expect(try vouchedDirectory() == directoryIdentity)
        let otherFile = store.fileURL(of: other)
        switch change {
        case "copied in":
            try copyIntoStore(tone("c.wav", seconds: 3), id: "abcdefabcdef")
            #expect(try store.memos().map(\.duration) == [1, 2, 3])
        case "removed":
            try FileManager.default.removeItem(at: otherFile)
            #expect(try store.memos() == [kept])
        default:
            try FileManager.default.moveItem(at: otherFile, to: store.directory.appendingPathComponent("abcdefabcdef.wav"))
            #expect(try store.memos().map { [$0.id, $0.title] } == [[kept.id, "Kept"], ["abcdefabcdef", "Other"]])
        }
    }

    @Test func aFileStillBeingCopiedInKeepsTheDirectoryUnvouchedUntilItIsAdopted() throws {
        let kept = try store.importAudio(from: tone("a.wav"), title: "Kept")
        let whole = try Data(contentsOf: tone("b.wav", seconds: 2))
        // The copy has begun: the file is there, only its first bytes written, and it cannot be read yet.
        let copy = store.directory.appendingPathComponent("abcdefabcdef.wav")
        try whole.prefix(20).write(to: copy)
        try settle()
        #expect(try store.memos() == [kept])
        #expect(try vouchedDirectory() == nil)
        // The rest is written into the same file: the directory does not change, and the file is adopted.
        let handle = try FileHandle(forWritingTo: copy)
        try handle.seekToEnd()
        try handle.write(contentsOf: whole.dropFirst(20))
        try handle.close()
        #expect(try store.memos().map(\.duration) == [1, 2])
    }

    @Test func aSparedLeftoverKeepsTheDirectoryUnvouched() throws {
        let kept = try store.importAudio(from: tone("a.wav"), title: "Kept")
        // A converted file of a moment ago, which its writer may not have locked yet.
        try Data([1, 2, 3]).write(to: store.directory.appendingPathComponent(".abcdefabcdef.wav.partial"))
        try settle()
        #expect(try store.memos() == [kept])
        #expect(try vouchedDirectory() == nil)
    }

    @Test func aRecordingWhoseProcessEndsInAVouchedDirectoryIsRecovered() throws {
        var ticket: RecordingTicket? = try store.beginRecording(title: "Interrupted", settings: AudioSettings())
        let started = try #require(ticket).memo
        let writer = try AudioFileWriter(
            url: try #require(ticket).fileURL, settings: try #require(ticket).settings, permissions: [.ownerReadWrite])
        try [Float](repeating: 0.25, count: 24000).withUnsafeBufferPointer { try writer.write($0) }
        try settle()
        #expect(try store.memos() == [started])
        #expect(try vouchedDirectory() == directoryIdentity)
        // The process dies: its lock goes free, and nothing in the directory comes or goes.
        ticket = nil
        let recovered = try store.memos()
        #expect(recovered.map(\.state) == [.recovered] && recovered.map(\.duration) == [0.5])
        try writer.close()
    }

    @Test func onlyADirectoryThatShowsEveryLaterChangeIsVouchedFor() throws {
        _ = try store.importAudio(from: tone("a.wav"), title: "Kept")
        #expect(try #require(directoryIdentity).revealsLaterChanges(ofDirectoryAt: store.directory.path) == false)
        // A modification time set back, as `touch -d` or `rsync -a` do, is not enough: the change time tells.
        try setModificationTime(of: store.directory.path, to: timespec(tv_sec: 1_700_000_000, tv_nsec: 0))
        #expect(try #require(directoryIdentity).revealsLaterChanges(ofDirectoryAt: store.directory.path) == false)
        try settle()
        #expect(try #require(directoryIdentity).revealsLaterChanges(ofDirectoryAt: store.directory.path))
        // procfs is not a file system whose directory times are believed, however old they are.
        let proc = try #require(MemoIndexCache.Identity(path: "/proc/self"))
        #expect(proc.revealsLaterChanges(ofDirectoryAt: "/proc/self") == false)
    }
}
