import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// `.trash/` in the store: the versions of memos that edits replaced or deletes removed, each as two files, `<n>.<id>.<format>`, the audio
/// as it was (a second link to the file, made before the edit put the new one in its place: nothing is copied), and
/// `<n>.<id>.json`, what the index said of the memo then, the edit and when it was made; and, when the memo had one,
/// `<n>.<id>.waveform`, its waveform as it was (a second link too), which a restore puts back beside it. `n` counts up:
/// the highest is the last edit. The directory is 0700 and its files 0600, as the store's. A version stays
/// ``MemoStore/trashDays`` days, as in Apple's Voice Memos' "Recently Deleted"; older ones go the next time the store is
/// used (``purgeExpired(now:)``).
///
/// Everything here is done under the store's lock. A version whose record is written but whose audio is not (an edit
/// killed in between) is no version, and its record goes at the next clean-up; so does a version whose audio is the
/// memo's file itself (killed before the new file replaced it: the memo was not edited).
struct MemoTrash {
    /// The directory's name in the store.
    static let name = ".trash"
    /// The extension of a version's waveform.
    private static let waveformExtension = "waveform"
    /// How long a version is kept, in seconds.
    static let lifetime = Double(MemoStore.trashDays) * 86400

    /// What `<n>.<id>.json` holds.
    private struct Record: Codable {
        var memo: Memo
        var edit: MemoEdit
        var trashedAt: Date
    }

    /// The trash directory.
    let path: String

    init(store: URL) {
        path = store.appendingPathComponent(Self.name).path
    }

    /// A file of the trash, by its name: `<n>.<id>.<extension>`.
    private struct Entry {
        var number: Int
        var id: String
        var fileExtension: String

        /// Whether it is a version's audio, not its record or its waveform.
        var isAudio: Bool { fileExtension != "json" && fileExtension != MemoTrash.waveformExtension }

        init?(name: String) {
            let parts = name.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let number = Int(parts[0]), number > 0, parts[1].count == 12,
                  parts[1].allSatisfy(\.isHexDigit)
            else { return nil }
            (self.number, id, fileExtension) = (number, String(parts[1]), String(parts[2]))
        }
    }

    /// The names in the directory; none when there is no trash yet.
    private func names() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    /// The versions kept, oldest first; records that cannot be read, whose audio is gone, or kept longer than
    /// ``lifetime`` are left out.
    func versions(now: Date = Date()) -> [TrashedVersion] {
        let entries = names().compactMap(Entry.init(name:))
        let audio = Set(entries.filter(\.isAudio).map { "\($0.number).\($0.id)" })
        return entries.filter { $0.fileExtension == "json" && audio.contains("\($0.number).\($0.id)") }
            .compactMap { entry -> TrashedVersion? in
                guard let record = try? MemoIndex.decoder.decode(Record.self, from: Data(DurableFile.contents(of: filePath(entry, "json")))),
                      record.memo.id == entry.id, record.memo.isWellFormed
                else { return nil }
                return TrashedVersion(
                    number: entry.number, memo: record.memo, edit: record.edit, trashedAt: record.trashedAt,
                    path: path + "/\(entry.number).\(entry.id).\(record.memo.format.rawValue)")
            }
            .filter { $0.expiresAt > now && FileManager.default.fileExists(atPath: $0.path) }
            .sorted { $0.number < $1.number }
    }

    /// Removes the versions kept longer than ``lifetime``, each whole: its record goes last, so that one cut short
    /// leaves a record without audio, which a clean-up removes. Cheap when nothing is due: a version's record is read
    /// only when the file's own age says it may be.
    func purgeExpired(now: Date = Date()) {
        for entry in names().compactMap(Entry.init(name:)) where entry.fileExtension == "json" {
            let record = filePath(entry, "json")
            guard let status = try? FilePath(record).stat(),
                  now.timeIntervalSince1970 - Double(status.st_mtim.tv_sec) > Self.lifetime,
                  let kept = try? MemoIndex.decoder.decode(Record.self, from: Data(DurableFile.contents(of: record))),
                  now.timeIntervalSince(kept.trashedAt) > Self.lifetime
            else { continue }
            FileNames.removeIgnoringFailure(filePath(entry, Self.waveformExtension))
            FileNames.removeIgnoringFailure(filePath(entry, kept.memo.format.rawValue))
            FileNames.removeIgnoringFailure(record)
        }
    }

    private func filePath(_ entry: Entry, _ fileExtension: String) -> String {
        path + "/\(entry.number).\(entry.id).\(fileExtension)"
    }

    /// Keeps the file at `file`, the audio of `memo` before `edit`, as the next version in the trash: its record
    /// written and synced, then a second link to the file made and synced; then a second link to `waveform`, the
    /// waveform kept beside the memo, when there is one (derived data: not synced, and a failure keeps none). The
    /// files themselves stay where they are.
    ///
    /// - Throws: ``MemoStoreError/noSpace(path:)`` when the file system has no room for the record,
    ///   ``MemoStoreError/editFailed(path:reason:)`` for another failure; nothing is kept then.
    func keep(_ memo: Memo, file: String, waveform: String? = nil, before edit: MemoEdit) throws(MemoStoreError) -> TrashedVersion {
        let number = Self.nextNumber(after: names().compactMap(Entry.init(name:)).map(\.number).max() ?? 0)
        let stem = path + "/\(number).\(memo.id)"
        let version = TrashedVersion(number: number, memo: memo, edit: edit, trashedAt: Date(), path: stem + "." + memo.format.rawValue)
        do {
            try FileNames.makeDirectoryIfMissing(path, permissions: [.ownerReadWriteExecute])
            let record = try MemoIndex.encoder.encode(Record(memo: memo, edit: edit, trashedAt: version.trashedAt))
            try DurableFile.write(record, replacing: stem + ".json", permissions: [.ownerReadWrite], syncing: true)
            do throws(Errno) {
                try FileNames.link(file, as: version.path)
            } catch {
                FileNames.removeIgnoringFailure(stem + ".json")
                throw error
            }
            try DurableFile.syncDirectory(containing: version.path)
            try DurableFile.syncDirectory(containing: path)
        } catch {
            FileNames.removeIgnoringFailure(version.path)
            if error as? Errno == .noSpace { throw .noSpace(path: path) }
            throw .editFailed(path: path, reason: "\(error)")
        }
        // Derived data: without it, the waveform is measured again when asked for.
        if let waveform { try? FileNames.link(waveform, as: waveformPath(of: version)) }
        return version
    }

    /// The number of a version kept after one numbered `last`: higher, and unlike any another machine sharing the store
    /// gives its own version at the same time (a sync tool would put one over the other): the next multiple of 2^20
    /// above `last`, plus 20 random bits.
    static func nextNumber(after last: Int) -> Int {
        ((last >> 20) + 1) << 20 | Int.random(in: 0..<(1 << 20))
    }

    /// Where the waveform of `version` is kept.
    private func waveformPath(of version: TrashedVersion) -> String {
        path + "/\(version.number).\(version.memo.id).\(Self.waveformExtension)"
    }

    /// Moves the waveform kept with `version` to `destination`, beside the memo it is restored to; when it has none,
    /// removes what is at `destination`, another version's, to be measured again when asked for.
    func restoreWaveform(of version: TrashedVersion, to destination: String) {
        if (try? FileNames.rename(waveformPath(of: version), to: destination)) == nil { FileNames.removeIgnoringFailure(destination) }
        // Both names may lead to one file (a rename keeps the waveform as it is), and rename(2) then leaves both.
        FileNames.removeIgnoringFailure(waveformPath(of: version))
    }

    /// Removes `version` from the trash: its waveform and its audio, then its record.
    func remove(_ version: TrashedVersion) {
        FileNames.removeIgnoringFailure(waveformPath(of: version))
        FileNames.removeIgnoringFailure(version.path)
        FileNames.removeIgnoringFailure(path + "/\(version.number).\(version.memo.id).json")
    }

    /// Removes the record of `version`, whose audio has been moved out.
    func removeRecord(of version: TrashedVersion) {
        FileNames.removeIgnoringFailure(path + "/\(version.number).\(version.memo.id).json")
    }

    /// Removes every version of the memos with `ids`; all of them when `ids` is nil. Returns the bytes freed.
    @discardableResult
    func empty(ids: Set<String>? = nil) -> Int64 {
        var freed: Int64 = 0
        for name in names() {
            guard let entry = Entry(name: name), ids?.contains(entry.id) ?? true else {
                // What a killed write left (a record's temporary file) goes with the rest.
                if ids == nil { FileNames.removeIgnoringFailure(path + "/" + name) }
                continue
            }
            let file = path + "/" + name
            if entry.fileExtension != "json" { freed += FileManager.default.sizeOfItem(atPath: file) ?? 0 }
            FileNames.removeIgnoringFailure(file)
        }
        return freed
    }

    /// Removes what edits killed half-way left: records and waveforms without their audio, versions of memo `id` whose
    /// audio is the memo's file at `memoFile` itself (with their waveforms), and temporary files.
    func cleanUp(id: String, memoFile: String) {
        let current = FileIdentity(path: memoFile)
        let entries = names().compactMap(Entry.init(name:)).filter { $0.id == id }
        var audio = Set(entries.filter(\.isAudio).map(\.number))
        for entry in entries where entry.isAudio {
            if let current, FileIdentity(path: filePath(entry, entry.fileExtension)) == current {
                FileNames.removeIgnoringFailure(filePath(entry, entry.fileExtension))
                audio.remove(entry.number)
            }
        }
        for entry in entries where !entry.isAudio && !audio.contains(entry.number) {
            FileNames.removeIgnoringFailure(filePath(entry, entry.fileExtension))
        }
        for name in names() where name.hasSuffix(".tmp") { FileNames.removeIgnoringFailure(path + "/" + name) }
    }

    /// Which file a path leads to: its device and inode.
    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init?(path: String) {
            guard let status = try? FilePath(path).stat(followTargetSymlink: false) else { return nil }
            (device, inode) = (UInt64(status.deviceID.rawValue), UInt64(status.inode.rawValue))
        }
    }
}
