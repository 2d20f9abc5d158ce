import AudioIO
import Foundation
import TestSupport
import Testing

/// The queue's repeat modes, `replaceCurrentItem(with:)` and `canInsert(_:after:)`, rendered offline: what is heard,
/// compared with the items' samples.
@Suite(.timeLimit(.minutes(1))) struct QueueRepeatAndReplaceTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    func queue(_ items: [URL], on renderer: OfflineRenderer) async throws -> QueuePlayer {
        let queue = QueuePlayer(items: try await readyItems(items))
        queue.currentDevice = renderer.device
        return queue
    }

    @Test func repeatOnePlaysTheCurrentItemAgainWithoutAGapUntilTurnedOff() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1)
        let queue = try await queue([a.url, b.url], on: renderer)
        queue.repeatMode = .one
        #expect(queue.play())
        let looped = renderer.render(frameCount: 5 * 9600 / 2)
        #expect(firstDifference(looped, a.samples + a.samples + Array(a.samples.prefix(a.samples.count / 2))) == nil, "a, a, half of a")
        // The engine's event thread tells the queue of each pass that started.
        try await until { queue.previousItems.count == 2 }
        #expect(queue.items().prefix(2).map(\.url) == [a.url, a.url], "the pass playing, and the next one queued")
        queue.repeatMode = .none
        #expect(queue.items().map(\.url) == [a.url, b.url], "turned off: the next pass goes")
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(rest, Array(a.samples.suffix(a.samples.count / 2)) + b.samples) == nil, "the rest of that pass of a, then b")
        try await until { queue.previousItems.count == 4 }
        #expect(queue.previousItems.map(\.url) == [a.url, a.url, a.url, b.url], "each pass is an item played to its end")
        #expect(queue.repeatMode == .none)
    }

    @Test func repeatAllBringsEveryItemRoundAgainAndAdvancingSkipsToTheNextOne() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1), c = try scratch.noise("c.wav", seconds: 0.1)
        let queue = try await queue([a.url, b.url, c.url], on: renderer)
        queue.repeatMode = .all
        #expect(queue.play())
        let twice = renderer.render(frameCount: 2 * 19200 + 9600)
        #expect(firstDifference(twice, a.samples + b.samples + c.samples + a.samples + b.samples + c.samples + a.samples) == nil)
        try await until { queue.currentItem?.url == a.url && queue.previousItems.count == 6 }
        queue.advanceToNextItem()
        #expect(queue.items().prefix(3).map(\.url) == [b.url, c.url, a.url], "a, skipped, comes round too")
        #expect(firstDifference(renderer.render(frameCount: 4800), b.samples) == nil, "b from its start")
    }

    @Test func replacingTheCurrentItemPlaysTheNewOneFromItsStartThenGoesOn() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1), c = try scratch.noise("c.wav", seconds: 0.15)
        let queue = try await queue([a.url, b.url], on: renderer)
        #expect(queue.play())
        let first = renderer.render(frameCount: 4800)
        let replacement = try await readyItems([c.url])[0]
        queue.replaceCurrentItem(with: replacement)
        #expect(queue.currentItem === replacement && queue.items().map(\.url) == [c.url, b.url])
        #expect(queue.isPlaying)
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(first + rest, Array(a.samples.prefix(9600)) + c.samples + b.samples) == nil)
        try await until { !queue.isPlaying }
        #expect(queue.previousItems.map(\.url) == [c.url, b.url], "the item replaced was not played to its end")

        let paused = try await self.queue([a.url, b.url], on: renderer)
        paused.replaceCurrentItem(with: nil)
        #expect(paused.items().map(\.url) == [b.url], "nil: the next item takes its place")
    }

    @Test func canInsertTellsWhatInsertTakes() async throws {
        let a = try scratch.noise("a.wav", seconds: 0.1), b = try scratch.noise("b.wav", seconds: 0.1)
        let first = PlayerItem(url: a.url), second = PlayerItem(url: b.url)
        let queue = QueuePlayer(items: [first])
        #expect(queue.canInsert(second, after: nil))
        #expect(queue.canInsert(second, after: first))
        #expect(!queue.canInsert(second, after: PlayerItem(url: a.url)), "after an item not in the queue: items are objects")
        #expect(!queue.canInsert(first, after: nil), "an item already in the queue")
        #expect(!QueuePlayer(items: []).canInsert(first, after: nil), "an item in another player's queue")
        #expect(queue.items() == [first], "asking inserts nothing")
    }
}
