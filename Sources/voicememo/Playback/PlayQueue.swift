import AudioIO
import FoundationEssentials

/// Memos played one after another (`play A B C`): a ``QueuePlayer`` of their files, gapless, with next and
/// previous. `--loops n` queues the list n + 1 times; `-1` queues it twice, then once more each time the last pass
/// begins (gapless on a device with a clock, which tells the start in time), or once the queue ran out (a device
/// without one may play the whole queue before being told).
final class PlayQueue: Sendable {
    let items: [PlayItem]
    let queue: QueuePlayer
    /// Each file's gain in dB (`--normalize`), given again to each pass queued.
    private let gains: [URL: Float]
    /// Whether the list is queued again and again, until stopped.
    private let loopsForever: Bool
    /// Called as each memo starts, the first included.
    private let onStart: @Sendable (PlayItem) -> Void

    /// A queue of `items`, each at its gain of `gains` (dB; 0 without), on `device`, that plays the list `loops` more
    /// times (negative: until stopped); `onStart` is called as each memo starts.
    ///
    /// - Throws: ``AudioFileError`` for an item that is not readable audio: refused before anything plays, as a memo
    ///   alone is.
    init(
        items: [PlayItem], gains: [Double]?, device: String, loops: Int,
        onStart: @escaping @Sendable (PlayItem) -> Void
    ) throws {
        for item in items { _ = try AudioFile(forReading: item.url, options: item.options) }
        self.items = items
        loopsForever = loops < 0
        // A file given twice is one memo, at one gain.
        self.gains = Dictionary(zip(items.map(\.url), (gains ?? []).map(Float.init))) { first, _ in first }
        queue = QueuePlayer(items: [])
        queue.currentDevice = device
        self.onStart = onStart
        for _ in 0..<(loopsForever ? 2 : loops + 1) { queueOnce() }
    }

    /// The memo of `url` (the first of the list with it).
    func item(playing url: URL) -> PlayItem? {
        items.first { $0.url == url }
    }

    /// The memo heard.
    var heard: PlayItem? { queue.currentItem.flatMap { item(playing: $0.url) } }

    /// Where the memo heard stands in the queue, e.g. the 2nd of 3.
    var place: (number: Int, count: Int) {
        let played = queue.previousItems.count
        return (played + 1, played + queue.items().count)
    }

    /// Starts playing, and calls `report` once the queue has ended: played to its end, or failed.
    ///
    /// - Throws: ``AudioPlayerFailure`` when it cannot start.
    func start(reporting report: @escaping @Sendable (PlaybackOutcome) -> Void) throws {
        let events = queue.events()
        Task { [queue] in
            // A memo that cannot be played (its file changed since) is skipped; playback ends with its failure once
            // the others have played.
            var failure: AudioFileError?
            for await event in events {
                switch event {
                case .currentItemChanged(let playing?):
                    if let item = item(playing: playing.url) { onStart(item) }
                    if queue.items().count == items.count { queueAgain() }
                case .itemDidFailToPlayToEnd(_, let error):
                    failure = error
                case .finishedPlaying(true) where queueAgain():
                    if let first = items.first { onStart(first) }
                    queue.play()
                case .finishedPlaying(let successfully):
                    if successfully { return report(.finished) }
                    return report(.failed(failure.map { .failed(.file($0)) } ?? queue.status))
                default:
                    break
                }
            }
        }
        if let first = items.first { onStart(first) }
        // A device another program holds is waited for: the session starts the queue once it is free.
        guard queue.play() || queue.status.isWaitingForDevice else { throw AudioPlayerFailure(status: queue.status) }
    }

    /// Queues the list again when it loops until stopped; returns whether it did.
    @discardableResult
    private func queueAgain() -> Bool {
        if loopsForever { queueOnce() }
        return loopsForever
    }

    /// Queues the list once more, each memo at its gain.
    private func queueOnce() {
        for memo in items {
            let item = PlayerItem(asset: AudioAsset(url: memo.url, options: memo.options))
            item.gain = gains[memo.url] ?? 0
            queue.insert(item, after: nil)
        }
    }

    /// Goes on with the next memo; nothing after the last.
    func next() {
        if queue.items().count > 1 { queue.advanceToNextItem() }
    }

    /// Goes back to the memo played before; nothing on the first.
    func previous() {
        queue.advanceToPreviousItem()
    }
}
