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
}

extension Sequence<Memo> {
    /// The memos in `order`. Memos that tie are newest first, then by id, so the order is always the same.
    public func sorted(by order: MemoOrder) -> [Memo] {
        // Each title's order worked out once, not in every comparison.
        let titles = order == .title ? Dictionary(map { ($0.title, TitleOrder($0.title)) }) { first, _ in first } : [:]
        return sorted { first, second in
            switch order {
            case .title:
                if first.title != second.title { return titles[first.title]! < titles[second.title]! }
            case .duration:
                if first.duration != second.duration { return first.duration > second.duration }
            case .date:
                break
            }
            if first.createdAt != second.createdAt { return first.createdAt > second.createdAt }
            return first.id < second.id
        }
    }
}
