import FoundationEssentials
import SystemEdge

extension MemoStore {
    /// The shortest id prefix accepted as a reference.
    public static let minimumPrefixLength = 4

    /// The one memo `reference` names: its id, a unique prefix of an id (at least 4 characters), or its
    /// exact title. An id match wins over a title match.
    ///
    /// - Throws: ``MemoStoreError/noMatch(_:)``, ``MemoStoreError/prefixTooShort(_:)`` for fewer than 4 hex digits that
    ///   are no title, or ``MemoStoreError/ambiguous(_:candidates:)``.
    public func memo(matching reference: String) throws(MemoStoreError) -> Memo {
        try Self.memo(matching: reference, in: memos())
    }

    /// The memos `references` name, each as ``memo(matching:)`` finds it, all resolved against one reading
    /// of the index before anything is returned; a memo named twice is returned once.
    ///
    /// - Returns: The memos, in the order of their first reference.
    /// - Throws: The error of the first reference that names no memo or several.
    public func memos(matching references: [String]) throws(MemoStoreError) -> [Memo] {
        let all = try memos()
        var found: [Memo] = []
        for reference in references {
            let memo = try Self.memo(matching: reference, in: all)
            if !found.contains(where: { $0.id == memo.id }) { found.append(memo) }
        }
        return found
    }

    static func memo(matching reference: String, in memos: [Memo]) throws(MemoStoreError) -> Memo {
        if let exact = memos.first(where: { $0.id == reference }) { return exact }
        var matches: [Memo] = []
        if reference.count >= minimumPrefixLength {
            matches = memos.filter { $0.id.hasPrefix(reference.lowercased()) }
        }
        if matches.isEmpty { matches = memos.filter { $0.title == reference } }
        switch matches.count {
        case 0:
            // Someone who typed the first characters of an id they saw in a list learns why it names nothing.
            let looksLikeAnID = !reference.isEmpty && reference.allSatisfy(\.isHexDigit)
            throw looksLikeAnID && reference.count < minimumPrefixLength ? .prefixTooShort(reference) : .noMatch(reference)
        case 1: return matches[0]
        default: throw .ambiguous(reference, candidates: matches.map { "\($0.id) “\($0.title)” of \(localMinute($0.createdAt))" })
        }
    }

    /// `date` in local time to the minute, e.g. `2026-11-22 21:59`, as `list` shows it: what tells memos of one title
    /// apart. The C library's local time, not Foundation's, which needs ICU for time zones.
    private static func localMinute(_ date: Date) -> String {
        LocalTime(secondsSince1970: date.timeIntervalSince1970)?.minute ?? "\(date)"
    }
}
