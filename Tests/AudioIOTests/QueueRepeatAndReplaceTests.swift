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

    func queue(_ items: [URL], on renderer: OfflineRenderer) throws -> AudioQueuePlayer {
        let queue = try AudioQueuePlayer(items: items)
        queue.currentDevice = renderer.device
        return queue
    }

    @Test func repeatOnePlaysTheCurrentItemAgainWithoutAGapUntilTurnedOff() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1)
        let queue = try queue([a.url, b.url], on: renderer)
        queue.repeatMode = .one
        #expect(queue.play())
        let looped = renderer.render(frameCount: 5 * 9600 / 2)
        #expect(firstDifference(looped, a.samples + a.samples + Array(a.samples.prefix(a.samples.count / 2))) == nil, "a, a, half of a")
        // The engine's event thread tells the queue of each pass that started.
        try await until { queue.previousItems.count == 2 }
        #expect(queue.items.prefix(2) == [a.url, a.url], "the pass playing, and the next one queued")
        queue.repeatMode = .none
        #expect(queue.items == [a.url, b.url], "turned off: the next pass goes")
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(rest, Array(a.samples.suffix(a.samples.count / 2)) + b.samples) == nil, "the rest of that pass of a, then b")
        try await until { queue.previousItems.count == 4 }
        #expect(queue.previousItems == [a.url, a.url, a.url, b.url], "each pass is an item played to its end")
        #expect(queue.repeatMode == .none)
    }

    @Test func repeatAllBringsEveryItemRoundAgainAndAdvancingSkipsToTheNextOne() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1), c = try scratch.noise("c.wav", seconds: 0.1)
        let queue = try queue([a.url, b.url, c.url], on: renderer)
        queue.repeatMode = .all
        #expect(queue.play())
        let twice = renderer.render(frameCount: 2 * 19200 + 9600)
        #expect(firstDifference(twice, a.samples + b.samples + c.samples + a.samples + b.samples + c.samples + a.samples) == nil)
        try await until { queue.currentItem == a.url && queue.previousItems.count == 6 }
        queue.advanceToNextItem()
        #expect(queue.items.prefix(3) == [b.url, c.url, a.url], "a, skipped, comes round too")
        #expect(firstDifference(renderer.render(frameCount: 4800), b.samples) == nil, "b from its start")
    }

    @Test func replacingTheCurrentItemPlaysTheNewOneFromItsStartThenGoesOn() async throws {
        let renderer = try OfflineRenderer()
        let a = try scratch.noise("a.wav", seconds: 0.2), b = try scratch.noise("b.wav", seconds: 0.1), c = try scratch.noise("c.wav", seconds: 0.15)
        let queue = try queue([a.url, b.url], on: renderer)
        #expect(queue.play())
        let first = renderer.render(frameCount: 4800)
        try queue.replaceCurrentItem(with: c.url)
        #expect(queue.currentItem == c.url && queue.items == [c.url, b.url])
        #expect(queue.isPlaying)
        let rest = try renderer.renderAll(in: scratch)
        #expect(firstDifference(first + rest, Array(a.samples.prefix(9600)) + c.samples + b.samples) == nil)
        try await until { !queue.isPlaying }
        #expect(queue.previousItems == [c.url, b.url], "the item replaced was not played to its end")

        let paused = try self.queue([a.url, b.url], on: renderer)
        try paused.replaceCurrentItem(with: nil)
        #expect(paused.items == [b.url], "nil: the next item takes its place")
        #expect(throws: AudioFileError.self) { try paused.replaceCurrentItem(with: scratch.file("missing.wav")) }
        #expect(paused.items == [b.url], "a file that cannot be read changes nothing")
    }

    @Test func canInsertTellsWhatInsertTakes() throws {
        let a = try scratch.noise("a.wav", seconds: 0.1), b = try scratch.noise("b.wav", seconds: 0.1)
        let text = scratch.file("notes.txt")
        try Data("not audio".utf8).write(to: text)
        let queue = try AudioQueuePlayer(items: [a.url])
        #expect(queue.canInsert(b.url, after: nil))
        #expect(queue.canInsert(b.url, after: a.url))
        #expect(!queue.canInsert(b.url, after: scratch.file("elsewhere.wav")), "after an item not in the queue")
        #expect(!queue.canInsert(text, after: a.url), "not audio")
        #expect(queue.items == [a.url], "asking inserts nothing")
    }
}
