import AudioIO
import FoundationEssentials
import Glibc

/// `play`'s lines about the addresses it plays, when it draws no display (output to a pipe or a log): where playback
/// stalls waiting for the download, and where it goes on. On a terminal the status line says "buffering" instead.
struct DownloadNotices {
    private let listeners: [Task<Void, Never>]

    /// Listens to the players of `items` that are addresses.
    init(items: [PlayItem], players: [AudioPlayer]) {
        listeners = zip(items, players).filter { $0.0.isRemote }.map { item, player in
            let events = player.events()
            let title = item.title.terminalSafe
            return Task {
                for await event in events {
                    switch event {
                    case .playbackStalled:
                        print("Waiting for “\(title)” to download, at \(Describe.duration(player.currentTime))")
                    case .playbackResumed:
                        print("Playing “\(title)” on from \(Describe.duration(player.currentTime))")
                    default:
                        continue
                    }
                    fflush(nil)
                }
            }
        }
    }

    /// Stops listening.
    func end() {
        listeners.forEach { $0.cancel() }
    }
}
