import AudioIO
import FoundationEssentials

/// A change to a memo's audio that keeps the version before it in the store's trash, so that
/// ``MemoStore/restore(_:)`` or ``MemoStore/undo()`` can bring it back.
public enum MemoEdit: Codable, Equatable, Sendable {
    /// The memo was cut to the part from `start` to `end` (seconds of the version before, at its frames): what lay
    /// before `start` and from `end` on is gone, and every time in the memo moves back by `start`.
    case trim(start: Double, end: Double)

    /// Where a time of the version before the edit lies in the version after it, in seconds; `nil` when the edit
    /// removed it. What anything pinned to a time of the memo (a marker) needs to follow the edit.
    public func timeAfter(_ time: Double) -> Double? {
        switch self {
        case .trim(let start, let end): (start...end).contains(time) ? time - start : nil
        }
    }

    /// Where `markers` of the version before the edit (in frames of its `sampleRate`) lie in the version after it; those
    /// the edit removed are dropped.
    func markersAfter(_ markers: [AudioMarker], sampleRate: Double) -> [AudioMarker] {
        switch self {
        case .trim(let start, let end):
            let frames = Int64((start * sampleRate).rounded())..<Int64((end * sampleRate).rounded())
            return markers.compactMap { $0.inExcerpt(frames) }
        }
    }
}

/// A version of a memo kept in the trash: the memo as it was before an edit, with its audio file.
public struct TrashedVersion: Equatable, Sendable {
    /// Its place in the trash: later edits have higher numbers.
    public let number: Int
    /// The memo as it was before the edit: its id, title, length, levels and loudness then.
    public let memo: Memo
    /// The edit that replaced it.
    public let edit: MemoEdit
    /// When the edit was made.
    public let trashedAt: Date
    /// The path of its audio file, in the trash.
    public let path: String
}
