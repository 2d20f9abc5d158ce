import AudioIO
import FoundationEssentials
import SystemEdge

/// `play`'s lines about the addresses it plays, when it draws no display (output to a pipe or a log): where playback
/// stalls waiting for the download, and where it goes on. On a terminal the status line says "buffering" instead.
struct DownloadNotices {
    private let listeners: [Task<Void, Never>]

    /// Listens to the players of `items` that are addresses.
    init(items: [PlayItem], players: [AudioPlayer]) {
        listeners = zip(items, players).filter { $0.0.isRemote }.map { item, player in
            let title = item.title.terminalSafe
            return Self.listen(to: player.events(), stalled: .playbackStalled, resumed: .playbackResumed) { (title, player.currentTime) }
        }
    }

    /// Listens to `queue` of `items`, when it has addresses; the lines name the memo heard.
    init(items: [PlayItem], queue: QueuePlayer) {
        let titles = Dictionary(items.map { ($0.url, $0.title.terminalSafe) }) { first, _ in first }
        listeners = items.contains(where: \.isRemote) ? [
            Self.listen(to: queue.events(), stalled: .playbackStalled, resumed: .playbackResumed) {
                (queue.currentItem.flatMap { titles[$0.url] } ?? "", queue.currentTime)
            },
        ] : []
    }

    /// Prints a line for each `stalled` and `resumed` of `events`, naming what `heard` says is heard, and where.
    private static func listen(
        to events: AsyncStream<BasePlayer.Event>, stalled: BasePlayer.Event, resumed: BasePlayer.Event,
        heard: @escaping @Sendable () -> (title: String, time: TimeInterval)
    ) -> Task<Void, Never> {
        Task {
            for await event in events {
                switch event {
                case stalled:
                    let (title, time) = heard()
                    print("Waiting for “\(title)” to download, at \(Describe.duration(time))")
                case resumed:
                    let (title, time) = heard()
                    print("Playing “\(title)” on from \(Describe.duration(time))")
                default:
                    continue
                }
                CurrentProcess.flushOutput()
            }
        }
    }

    /// Stops listening.
    func end() {
        listeners.forEach { $0.cancel() }
    }
}
