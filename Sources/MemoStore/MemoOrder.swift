import FoundationEssentials

/// The orders memos are listed in.
public enum MemoOrder: String, CaseIterable, Sendable {
    /// Newest first.
    case date
    /// By title from A to Z as the user's language sorts them: case-insensitive, with numbers in numeric
    /// order ("Memo 2" before "memo 10").
    case title
    /// Longest first.
    case duration
    /// Loudest first, by integrated loudness; memos not yet measured (``Memo/loudness`` `nil`) last.
    case loudness
}

extension Sequence<Memo> {
    /// The memos in `order`. Memos that tie are newest first; memos of the same second (dates are kept to the second)
    /// are in reverse of their order in the sequence, which for ``MemoStore/memos()`` is the order they were added:
    /// the one made last comes first.
    public func sorted(by order: MemoOrder) -> [Memo] {
        // Positions are sorted, not memos: moving 10,000 memos of a dozen fields each is most of the work.
        // Each title's order is worked out once, not in every comparison.
        let memos = Array(self)
        let titles = order == .title ? memos.map { TitleOrder($0.title) } : []
        return memos.indices.sorted { first, second in
            switch order {
            case .title:
                if titles[first] != titles[second] { return titles[first] < titles[second] }
            case .duration:
                if memos[first].duration != memos[second].duration { return memos[first].duration > memos[second].duration }
            case .loudness:
                let (one, other) = (memos[first].loudness?.integrated ?? -.infinity, memos[second].loudness?.integrated ?? -.infinity)
                if one != other { return one > other }
            case .date:
                break
            }
            if memos[first].createdAt != memos[second].createdAt { return memos[first].createdAt > memos[second].createdAt }
            return first > second
        }.map { memos[$0] }
    }
}
