import AudioIO
import FoundationEssentials

/// What the edits of one memo say together, the same on every machine that has the same edits, in whatever order
/// they came: each field is what the last edit that set it says (the highest ``MemoEditRecord/Stamp``), and the memo
/// is deleted when its last delete came after every other edit of it (an edit made later brings it back).
struct MemoMerge {
    /// For each field, the edit that set it last.
    private(set) var winners: [MemoEditRecord.Field: MemoEditRecord] = [:]
    /// Every title the memo was given, in the order of the edits: the ones that lost stay here.
    private(set) var titles: [TitleChange] = []
    /// The last edit of all.
    private(set) var last: MemoEditRecord?
    /// Each field's values that any edit set.
    private var values: [MemoEditRecord.Field: Set<AnyHashable>] = [:]

    init(_ records: [MemoEditRecord]) {
        for record in records.sorted(by: { $0.stamp < $1.stamp }) {
            last = record
            for field in record.fields {
                winners[field] = record
                values[field, default: []].insert(Self.value(of: field, in: record))
            }
            if let title = record.title, record.fields.contains(.title) {
                titles.append(TitleChange(title: title, clock: record.clock, machine: record.machine, madeAt: record.madeAt))
            }
        }
    }

    /// Whether the memo is deleted: its last edit of all is a delete.
    var isDeleted: Bool {
        guard let last, let deleted = winners[.deleted] else { return false }
        return deleted.deleted == true && deleted.stamp == last.stamp
    }

    /// Whether some edit says its audio changed.
    var audioChanged: Bool { winners[.audio] != nil }

    /// The audio file as the last edit of it says it is once whole, if that edit says.
    var audio: MemoEditRecord.Audio? { winners[.audio]?.audio }

    /// Whether `memo`, its facts read from its audio file as it is now, is still arriving: the file is smaller and
    /// shorter than the last edit of its audio says. Shorter too, because two machines that renamed it at once leave
    /// the file of either, whose tags differ but whose audio does not.
    func isArriving(_ memo: Memo) -> Bool {
        guard let audio else { return false }
        return memo.sizeBytes < audio.sizeBytes && memo.duration < audio.duration - 0.001
    }

    /// `memo` with the fields the edits set, but those in `kept`.
    func applied(to memo: Memo, keeping kept: [MemoEditRecord.Field] = []) -> Memo {
        var memo = memo
        let winners = winners.filter { !kept.contains($0.key) }
        if let title = winners[.title]?.title { memo.title = title }
        if let createdAt = winners[.createdAt]?.createdAt { memo.createdAt = createdAt }
        if let edit = winners[.artist] { memo.artist = edit.artist }
        if let edit = winners[.album] { memo.album = edit.album }
        if let edit = winners[.comment] { memo.comment = edit.comment }
        if let markers = winners[.markers]?.markers { memo.markers = markers }
        return memo
    }

    /// The fields of `memo` whose value no edit ever set: what a program that writes no edits (an older voicememo,
    /// someone editing the index by hand) changed.
    func unrecordedFields(of memo: Memo) -> [MemoEditRecord.Field] {
        let record = MemoEditRecord(of: memo, fields: MemoEditRecord.Field.allCases, clock: 0, machine: "")
        return [.title, .createdAt, .artist, .album, .comment, .markers].filter { field in
            values[field].map { !$0.contains(Self.value(of: field, in: record)) } ?? false
        }
    }

    /// What `record` sets `field` to.
    private static func value(of field: MemoEditRecord.Field, in record: MemoEditRecord) -> AnyHashable {
        switch field {
        case .title: AnyHashable(record.title)
        // Whole seconds: what an change file's date keeps.
        case .createdAt: AnyHashable(record.createdAt.map { $0.timeIntervalSince1970.rounded(.down) })
        case .artist: AnyHashable(record.artist)
        case .album: AnyHashable(record.album)
        case .comment: AnyHashable(record.comment)
        case .markers: AnyHashable(record.markers)
        case .audio: AnyHashable(0)
        case .deleted: AnyHashable(record.deleted)
        }
    }
}

/// A title a memo was given, by which machine and when: ``MemoStore/titleHistory(of:)``.
public struct TitleChange: Codable, Equatable, Sendable {
    /// The title.
    public var title: String
    /// The edit's logical clock: a later edit has a higher one, or the same and a higher ``machine``.
    public var clock: Int
    /// The id of the machine that made the edit (16 hexadecimal digits, see ``SyncStatus/machine``).
    public var machine: String
    /// When the edit was made, by that machine's clock.
    public var madeAt: Date
}
