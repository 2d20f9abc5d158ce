@testable import AudioIO
import Testing

/// The position a player reports while it plays forward never goes back within an item, whatever the device's queue
/// does; the next item (a queue's file, a loop's pass) starts again from its beginning.
@Suite struct ForwardPositionTests {
    @Test func aQueueThatGrowsHoldsThePositionUntilWhatIsHeardCatchesUp() {
        var position = ForwardPosition()
        // 1.0 s heard, then another client starts on the sink and its queue grows by 0.7 s: 0.3 s would be reported.
        let reported = [1.0, 0.3, 0.6, 1.0, 1.2].map { position.report($0, item: 0) }
        #expect(reported == [1.0, 1.0, 1.0, 1.0, 1.2])
    }

    @Test func theNextItemOrPassStartsFromItsBeginning() {
        var position = ForwardPosition()
        #expect(position.report(4.9, item: 0) == 4.9)
        #expect(position.report(0.1, item: 1) == 0.1)
        #expect(position.report(0.05, item: 1) == 0.1)
        #expect(position.report(0.2, item: 1) == 0.2)
    }
}
