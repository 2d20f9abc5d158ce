import AudioIO
import FoundationEssentials

/// A change to a memo that keeps the version before it in the store's trash, so that ``MemoStore/restore(_:)`` or
/// ``MemoStore/undo()`` can bring it back.
public enum MemoEdit: Codable, Equatable, Sendable {
    /// The memo was cut to the part from `start` to `end` (seconds of the version before, at its frames): what lay
    /// before `start` and from `end` on is gone, and every time in the memo moves back by `start`.
    case trim(start: Double, end: Double)
    /// The memo was given a new title; its audio is the same. Restoring the version brings the title back.
    case rename
    /// The memo was deleted: the version is the memo whole, and restoring it puts it back in the store.
    case delete
    /// Two machines changed the memo's audio at once (a rename writes the title into it, a trim cuts it), and the sync
    /// tool kept the one it did not choose as a conflict copy: the version is that copy, kept here rather than left in
    /// the store, so that nothing is lost and nothing is left to clean up.
    case syncConflict

    /// Where a time of the version before the edit lies in the version after it, in seconds; `nil` when the edit
    /// removed it (a delete removes every time). What anything pinned to a time of the memo (a marker) needs to follow
    /// the edit.
    public func timeAfter(_ time: Double) -> Double? {
        switch self {
        case .trim(let start, let end): (start...end).contains(time) ? time - start : nil
        case .rename, .syncConflict: time
        case .delete: nil
        }
    }

    /// Where `markers` of the version before the edit (in frames of its `sampleRate`) lie in the version after it; those
    /// the edit removed are dropped.
    func markersAfter(_ markers: [AudioMarker], sampleRate: Double) -> [AudioMarker] {
        switch self {
        case .trim(let start, let end):
            let frames = Int64((start * sampleRate).rounded())..<Int64((end * sampleRate).rounded())
            return markers.compactMap { $0.inExcerpt(frames) }
        case .rename, .syncConflict: return markers
        case .delete: return []
        }
    }
}

/// A version of a memo kept in the trash: the memo as it was before an edit or its delete, with its audio file; kept
/// for ``MemoStore/trashDays`` days.
public struct TrashedVersion: Equatable, Sendable {
    /// Its place in the trash: later edits have higher numbers.
    public let number: Int
    /// The memo as it was before the edit: its id, title, length, levels and loudness then.
    public let memo: Memo
    /// The edit that replaced it.
    public let edit: MemoEdit
    /// When the edit was made.
    public let trashedAt: Date
    /// When it leaves the trash for good: ``MemoStore/trashDays`` days after ``trashedAt``.
    public var expiresAt: Date { trashedAt.addingTimeInterval(MemoTrash.lifetime) }
    /// The path of its audio file, in the trash.
    public let path: String
}
