@testable import AudioIO
import Testing

/// Each packet of a page is placed on from where the page before ended; the last page's end trimming stays on its
/// last packet.
@Suite struct OpusPacketTimelineTests {
    /// A one-frame CELT packet of 20 ms (TOC 0xF8): 960 samples at 48 kHz.
    private let twentyMilliseconds = [UInt8(0xF8)]

    /// `count` packets completed on one page whose granule position is `end`, the last one ending the stream when
    /// `last`.
    private func page(_ count: Int, endingAt end: Int64, last: Bool = false) -> [OggPacket] {
        (0..<count).map { index in
            OggPacket(
                data: twentyMilliseconds, granulePosition: index == count - 1 ? end : -1,
                isEndOfStream: last && index == count - 1)
        }
    }

    @Test func anEndTrimmedLastPageKeepsItsTrimOnItsLastPacket() throws {
        var timeline = OpusPacketTimeline()
        let placedFirst = timeline.place(page(3, endingAt: 3 * 960 + 312))
        let first = try #require(placedFirst)
        #expect(first.map(\.start) == [312, 1272, 2232])
        // Three packets more, the stream's last 168 samples trimmed.
        let placedLast = timeline.place(page(3, endingAt: 6 * 960 + 312 - 168, last: true))
        let last = try #require(placedLast)
        #expect(last.map(\.start) == [3192, 4152, 5112])
        #expect(last.map(\.packet.granulePosition) == [4152, 5112, 5904])
    }

    @Test func aFirstPageThatIsAlsoTheLastStartsAtZeroAndIsTrimmed() throws {
        var timeline = OpusPacketTimeline()
        // 37 packets hold 35,520 samples; the page ends at 35,400: 120 samples trimmed, not a start before 0.
        let placedPage = timeline.place(page(37, endingAt: 35400, last: true))
        let placed = try #require(placedPage)
        #expect(placed.first?.start == 0 && placed.first?.packet.granulePosition == 960)
        #expect(placed.last?.start == 36 * 960 && placed.last?.packet.granulePosition == 35400)
    }

    @Test func aPageWithoutAPositionOrWithAPacketThatIsNotOpusIsNotPlaced() {
        var timeline = OpusPacketTimeline(after: 960)
        let unpositioned = timeline.place([OggPacket(data: twentyMilliseconds, granulePosition: -1)])
        let notOpus = timeline.place([OggPacket(data: [], granulePosition: 1920)])
        #expect(unpositioned == nil && notOpus == nil)
        #expect(timeline.end == 960)
    }
}
