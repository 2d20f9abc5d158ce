import Foundation

/// The orders memos are listed in.
public enum MemoOrder: String, CaseIterable, Sendable {
    /// Newest first.
    case date
    /// By title from A to Z as the user's language sorts them: case-insensitive, with numbers in numeric
    /// order ("Memo 2" before "memo 10").
    case title
    /// Longest first.
    case duration
}

extension Sequence<Memo> {
    /// The memos in `order`. Memos that tie are newest first, then by id, so the order is always the same.
    public func sorted(by order: MemoOrder) -> [Memo] {
        // Positions are sorted, not memos: moving 10,000 memos of a dozen fields each is most of the work.
        let memos = Array(self)
        return memos.indices.sorted { order.places(memos[$0], before: memos[$1]) }.map { memos[$0] }
    }
}

extension MemoOrder {
    fileprivate func places(_ first: Memo, before second: Memo) -> Bool {
        switch self {
        case .title:
            let comparison = first.title.localizedStandardCompare(second.title)
            if comparison != .orderedSame { return comparison == .orderedAscending }
        case .duration:
            if first.duration != second.duration { return first.duration > second.duration }
        case .date:
            break
        }
        if first.createdAt != second.createdAt { return first.createdAt > second.createdAt }
        return first.id < second.id
    }
}
