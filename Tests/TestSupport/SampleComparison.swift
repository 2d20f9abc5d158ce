import Testing

/// Where `actual` first departs from `expected` (over `expected`'s length), described; nil when it does not.
public func firstDifference<Sample: Equatable>(_ actual: [Sample], _ expected: [Sample]) -> String? {
    guard actual.count >= expected.count else { return "only \(actual.count) of \(expected.count) samples" }
    guard let index = expected.indices.first(where: { actual[$0] != expected[$0] }) else { return nil }
    return "sample \(index): \(actual[index]) instead of \(expected[index])"
}

/// The helper says where two runs of samples part, and nothing when they agree over the expected run.
@Suite struct SampleComparisonTests {
    @Test func theFirstDifferenceIsNamedAndAgreementIsNil() {
        #expect(firstDifference([1, 2, 3, 4], [1, 2, 3]) == nil, "longer than expected, alike over it")
        #expect(firstDifference([1, 9, 3], [1, 2, 3]) == "sample 1: 9 instead of 2")
        #expect(firstDifference([1, 2], [1, 2, 3]) == "only 2 of 3 samples")
    }
}
