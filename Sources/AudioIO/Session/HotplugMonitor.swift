import FoundationEssentials
import SystemEdge

/// Sound cards appearing and vanishing, seen as their control devices (`controlC<N>`) appearing in and
/// vanishing from `/dev/snd`, or the directory `AUDIOIO_SND_DIR` names (which tests fill themselves).
///
/// A thread of its own waits on the directory and reports each card as a ``PortDescription`` named
/// `hw:N`, with the card's name from alsa-lib when the card exists. Each card present, from the start or
/// once it appears, also has its jack controls watched (see ``JackMonitor``).
final class HotplugMonitor: Sendable {
    /// The directory watched when `AUDIOIO_SND_DIR` does not name another.
    static let defaultDirectory = "/dev/snd"

    /// The directory to watch: `$AUDIOIO_SND_DIR`, else `/dev/snd`.
    static var directory: String {
        ProcessInfo.processInfo.environment["AUDIOIO_SND_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultDirectory
    }

    private let watch: DirectoryWatch

    /// Starts watching `directory`; `report` is called on the monitor's thread for each card that
    /// appears (true) or vanishes (false), in order, and `jackChanged` on a card's own thread for each of
    /// its jacks plugged or unplugged.
    ///
    /// - Throws: `Errno` when the directory cannot be watched.
    init(directory: String, report: @escaping @Sendable (PortDescription, _ appeared: Bool) -> Void,
         jackChanged: @escaping @Sendable (JackMonitor.Change) -> Void) throws {
        let watch = try DirectoryWatch(path: directory)
        self.watch = watch
        // The cards present, listed once the watch is on so that none falls between the two: their jacks
        // are watched when this returns.
        let jacks = JackMonitor(report: jackChanged)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            if let index = Self.cardIndex(controlDevice: name) { jacks.watch(card: index) }
        }
        SystemThread.detach(name: "audio-hotplug", realtime: false) {
            // A card's names, learnt when it appeared: once it is gone, alsa-lib no longer knows them.
            var known: [Int: PortDescription] = [:]
            while let changes = watch.nextChanges() {
                for change in changes {
                    guard let index = Self.cardIndex(controlDevice: change.name) else { continue }
                    if change.appeared {
                        // Its jacks are watched before it is reported: whoever sees it can plug them.
                        jacks.watch(card: index)
                        let port = Self.port(card: index)
                        known[index] = port
                        report(port, true)
                    } else {
                        jacks.forget(card: index)
                        report(known.removeValue(forKey: index) ?? Self.port(card: index), false)
                    }
                }
            }
        }
    }

    deinit { watch.close() }

    /// The card index `N` of a control device's name `controlC<N>`, or `nil` for another name.
    static func cardIndex(controlDevice name: String) -> Int? {
        guard name.hasPrefix("controlC") else { return nil }
        return Int(name.dropFirst("controlC".count)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// The card `index` as a port: alsa-lib's names when the card exists.
    static func port(card index: Int) -> PortDescription {
        // alsa-lib opens this very file to name a card; asking it only when the file is there keeps a
        // report from waiting on alsa-lib's configuration lock for a card it cannot name.
        let exists = FileManager.default.fileExists(atPath: "\(defaultDirectory)/controlC\(index)")
        let card = exists ? SoundCards.card(index: index) : nil
        return PortDescription(name: "hw:\(index)", description: card?.name ?? "card \(index)", card: index,
                               type: card.map { PortDescription.guessType(name: "hw:\(index)", description: $0.longName) } ?? .unknown)
    }
}
