import AudioIO
import Foundation
import MemoStore
import Testing

@Suite struct MemoOrderTests {
    private func memo(_ title: String, minute: Double, seconds: Double, id: String = "") -> Memo {
        Memo(
            id: id.isEmpty ? title : id, title: title, createdAt: Date(timeIntervalSince1970: 1_800_000_000 + minute * 60),
            duration: seconds, fileName: "x.wav", format: .wav, sampleRate: 48000, channels: 1, sizeBytes: 0,
            peakDBFS: [0], averageDBFS: [0], state: .complete)
    }

    private var memos: [Memo] {
        [memo("zebra", minute: 1, seconds: 5), memo("Memo 10", minute: 4, seconds: 1), memo("Émile", minute: 2, seconds: 9),
         memo("apple", minute: 3, seconds: 5), memo("Memo 2", minute: 5, seconds: 2)]
    }

    @Test func byDateTheNewestComesFirst() {
        #expect(memos.sorted(by: .date).map(\.title) == ["Memo 2", "Memo 10", "apple", "Émile", "zebra"])
    }

    @Test func byTitleCaseAccentsAndNumbersSortAsPeopleExpect() {
        #expect(memos.sorted(by: .title).map(\.title) == ["apple", "Émile", "Memo 2", "Memo 10", "zebra"])
    }

    @Test func byTitleNumbersOfAnyLengthCountByValueAndCaseOnlyBreaksTies() {
        let titles = ["Take 123456789012345678901234567890", "take 9", "Take 010", "Take 10", "Take 2b", "Take 2a", "take 2"]
        let memos = titles.enumerated().map { memo($1, minute: Double($0), seconds: 1) }
        #expect(memos.sorted(by: .title).map(\.title)
            == ["take 2", "Take 2a", "Take 2b", "take 9", "Take 010", "Take 10", "Take 123456789012345678901234567890"])
    }

    @Test func byDurationTheLongestComesFirstAndTiesAreNewestFirst() {
        #expect(memos.sorted(by: .duration).map(\.title) == ["Émile", "apple", "zebra", "Memo 2", "Memo 10"])
    }

    @Test func memosMadeInTheSameSecondComeLastMadeFirstWhateverTheirIds() {
        // Added in this order (the store's order); their ids, random, in the other.
        let triplets = [memo("Same", minute: 1, seconds: 1, id: "c"), memo("Same", minute: 1, seconds: 1, id: "a"),
                        memo("Same", minute: 1, seconds: 1, id: "b")]
        for order in MemoOrder.allCases { #expect(triplets.sorted(by: order).map(\.id) == ["b", "a", "c"]) }
    }
}
