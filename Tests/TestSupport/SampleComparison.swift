/// Where `actual` first departs from `expected` (over `expected`'s length), described; nil when it does not.
public func firstDifference<Sample: Equatable>(_ actual: [Sample], _ expected: [Sample]) -> String? {
    guard actual.count >= expected.count else { return "only \(actual.count) of \(expected.count) samples" }
    guard let index = expected.indices.first(where: { actual[$0] != expected[$0] }) else { return nil }
    return "sample \(index): \(actual[index]) instead of \(expected[index])"
}
