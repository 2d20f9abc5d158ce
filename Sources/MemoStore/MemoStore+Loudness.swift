import AudioIO
import Dispatch
import FoundationEssentials
import Synchronization
import SystemEdge

extension MemoStore {
    /// `memos` with their loudness: measured now for those that have none yet (memos of a store made before loudness
    /// was measured, or whose measure failed), and saved in the index, so that it is measured once.
    ///
    /// Loudness is derived data: a recording measures it from the samples it writes, an import or a trim from what it
    /// writes; a memo without it has it measured from its file here, several files at once, one per core (an hour of
    /// audio takes a few seconds of CPU: libebur128 oversamples 4× for the true peak). A memo being recorded is left
    /// without. The index is changed only for memos whose files stayed as they were while they were measured, and only
    /// when the store's lock is free: a reader never waits for a writer, and one that cannot change the store (a
    /// read-only one) still gets the loudness, unsaved.
    ///
    /// - Parameter memos: Memos of this store.
    /// - Returns: The memos in the same order, each with its loudness where it could be measured.
    public func measuringLoudness(of memos: [Memo]) -> [Memo] {
        let unmeasured = memos.indices.filter { memos[$0].loudness == nil && memos[$0].state != .recording }
        guard !unmeasured.isEmpty else { return memos }
        let paths = unmeasured.map { filePath(of: memos[$0]) }
        let results = Mutex([Int: (AudioLoudness, MemoIndexCache.Identity)]())
        DispatchQueue.concurrentPerform(iterations: paths.count) { number in
            guard let before = MemoIndexCache.Identity(path: paths[number]),
                  let file = try? AudioFile(forReading: URL(filePath: paths[number], directoryHint: .notDirectory)),
                  let loudness = try? file.measureLoudness(),
                  MemoIndexCache.Identity(path: paths[number]) == before
            else { return }
            results.withLock { $0[number] = (loudness, before) }
        }
        var measured = memos
        let found = results.withLock { $0 }
        for (number, (loudness, _)) in found { measured[unmeasured[number]].loudness = loudness }
        guard !found.isEmpty, case .acquired(let lock) = FileLock.attempt(path: lockPath, creating: true) else { return measured }
        defer { lock.unlock() }
        _ = try? reconcileAndSave(entering: nil) { index throws(MemoStoreError) in
            for (number, (loudness, identity)) in found {
                let memo = memos[unmeasured[number]]
                guard let position = index.memos.firstIndex(where: { $0.id == memo.id }),
                      index.memos[position].loudness == nil, index.memos[position].fileName == memo.fileName,
                      MemoIndexCache.Identity(path: filePath(of: memo)) == identity
                else { continue }
                var entry = index.memos[position]
                entry.loudness = loudness
                index.replace(at: position, with: entry)
            }
        }
        return measured
    }
}
