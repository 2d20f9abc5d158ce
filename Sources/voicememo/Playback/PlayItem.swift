import AudioIO
import FoundationEssentials
import MemoStore
import Synchronization

/// Something `voicememo play` plays: a memo of the store, a file named by its path that is not in the store, or an
/// `http` or `https` address, played as it downloads.
struct PlayItem {
    /// What messages call it: the memo's title, or the file's name.
    let title: String
    /// The audio file, or the address.
    let url: URL
    /// The memo, when it is one.
    let memo: Memo?
    /// How an address is asked for (`--header`, `--ca-file`); unused for a file.
    var options = AudioAsset.Options()
    /// A file's markers (not a memo's), read once when the item is made, in seconds.
    var fileMarkerTimes: [TimeInterval] = []
    /// An address's markers, read in the background once it has opened for playing; nil for a file.
    var remoteMarkers: RemoteMarkers?

    /// Whether it is an address, played as it downloads.
    var isRemote: Bool { !url.isFileURL }

    /// The memo's markers, or the file's, in seconds from the start, in order; an address's once they are read (none
    /// before).
    var markerTimes: [TimeInterval] {
        if let memo { return memo.markers.map { $0.time(atSampleRate: memo.sampleRate) } }
        return remoteMarkers?.times ?? fileMarkerTimes
    }

    /// The items `arguments` name, in order. An `http://` or `https://` argument is an address, asked for with
    /// `options`. An argument with a `/`
    /// in it (`./Standup`, `~/x.m4a`) is a file, unless
    /// no file is there and a memo has that title; one without is a memo reference, unless it names no memo and a
    /// file of that name is in the current directory. A memo named twice plays once. The store in `directory` is
    /// neither opened nor created when only files are named.
    ///
    /// - Throws: ``MemoStoreError`` for a reference that names no memo or several.
    static func items(_ arguments: [String], storeDirectory directory: URL, options: AudioAsset.Options) throws -> [PlayItem] {
        var opened: MemoStore?
        func store() throws -> MemoStore {
            if let opened { return opened }
            let made = try MemoStore(directory: directory)
            opened = made
            return made
        }
        func namesAMemo(_ argument: String) -> Bool {
            FileManager.default.fileExists(atPath: directory.path) && (try? store().memo(matching: argument)) != nil
        }
        var items: [PlayItem] = []
        for argument in arguments {
            if let address = RemoteAddress.url(from: argument) {
                items.append(PlayItem(
                    title: RemoteAddress.name(of: address), url: address, memo: nil, options: options,
                    remoteMarkers: RemoteMarkers(of: address, options: options)))
                continue
            }
            var isDirectory = false
            let isFile = FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) && !isDirectory
            if argument.contains("/") ? isFile || !namesAMemo(argument) : isFile && !namesAMemo(argument) {
                let url = URL(fileURLWithPath: argument)
                var item = PlayItem(title: url.lastPathComponent, url: url, memo: nil)
                if let file = try? AudioFile(forReading: url) {
                    item.fileMarkerTimes = file.metadata.markers.map { $0.time(atSampleRate: file.sampleRate) }
                }
                items.append(item)
                continue
            }
            let store = try store()
            let memo = try store.memo(matching: argument)
            if !items.contains(where: { $0.memo?.id == memo.id }) {
                items.append(PlayItem(title: memo.title, url: store.fileURL(of: memo), memo: memo))
            }
        }
        return items
    }
}

/// The markers of an address, in seconds, read once in the background from what its header's download brings (its
/// chapters, or a WAV's cue points from one range request for its end): a key press finds them here, read or not yet,
/// and playing starts without waiting for them.
final class RemoteMarkers: Sendable {
    private let address: URL
    private let options: AudioAsset.Options
    private let read = Mutex<[TimeInterval]>([])

    init(of address: URL, options: AudioAsset.Options) {
        self.address = address
        self.options = options
    }

    /// Starts reading them: once the address has opened for playing, so that one the server refuses is asked for once.
    func startReading() {
        let (address, options) = (address, options)
        Task.detached(priority: .utility) { [weak self] in
            guard let (metadata, sampleRate) = try? await AudioAsset(url: address, options: options).load(.metadata, .sampleRate) else { return }
            self?.read.withLock { $0 = metadata.markers.map { $0.time(atSampleRate: sampleRate) } }
        }
    }

    /// What is read so far: none, then every marker.
    var times: [TimeInterval] { read.withLock { $0 } }
}
