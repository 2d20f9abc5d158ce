import AudioIO
import FoundationEssentials
import SystemEdge

/// `play`'s lines about the addresses it plays, when it draws no display (output to a pipe or a log): where playback
/// stalls waiting for the download, where it goes on, and what a live stream's station says plays now, as it is heard.
/// On a terminal the status line says "buffering", and names what is on air, instead.
struct DownloadNotices {
    private let listeners: [Task<Void, Never>]

    /// Listens to what plays `memos`, when they have addresses: to each player of memos together (the group tells the
    /// lead's stalls only); the lines name the memo heard.
    init(_ memos: PlayedMemos) {
        guard memos.items.contains(where: \.isRemote) else {
            listeners = []
            return
        }
        if let group = memos.playback as? PlayerGroup {
            listeners = zip(memos.items, group.players).filter { $0.0.isRemote }.map { item, player in
                let title = item.title.terminalSafe
                return Self.listen(to: player.events()) { (title, player.currentTime) }
            }
        } else {
            let playback = memos.playback
            listeners = [Self.listen(to: playback.events()) { (memos.heard?.title.terminalSafe ?? "", playback.currentTime) }]
        }
    }

    /// Prints a line for each stall and resume of `events`, naming what `heard` says is heard, and where.
    private static func listen(
        to events: AsyncStream<BasePlayer.Event>, heard: @escaping @Sendable () -> (title: String, time: TimeInterval)
    ) -> Task<Void, Never> {
        Task {
            for await event in events {
                switch event {
                case .playbackStalled:
                    let (title, time) = heard()
                    print("Waiting for “\(title)” to download, at \(Describe.duration(time))")
                case .playbackResumed:
                    let (title, time) = heard()
                    print("Playing “\(title)” on from \(Describe.duration(time))")
                case .timedMetadataChanged(let metadata):
                    guard let onAir = metadata.title, !onAir.isEmpty else { continue }
                    print("Now playing: \(onAir.terminalSafe)")
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
