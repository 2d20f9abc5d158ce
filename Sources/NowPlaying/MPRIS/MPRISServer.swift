import CMPRIS
import FoundationEssentials
import Glibc
import SystemPackage

/// What an MPRIS client sees of the player: the `org.mpris.MediaPlayer2.Player` properties that signal changes.
struct PublishedState: Equatable {
    enum PlaybackStatus: String { case playing = "Playing", paused = "Paused", stopped = "Stopped" }

    var playbackStatus = PlaybackStatus.stopped
    /// The track's D-Bus object path; `nil`: no track.
    var trackID: String?
    var title: String?
    var artist: String?
    var album: String?
    var artworkURL: String?
    var url: String?
    /// ISO 8601.
    var contentCreated: String?
    /// Seconds; 0: unknown.
    /// Seconds; infinite for a live stream, which has no `mpris:length`.
    var length: TimeInterval = 0
    var rate = 1.0, minimumRate = 1.0, maximumRate = 1.0, volume = 1.0
    var canGoNext = false, canGoPrevious = false, canPlay = false, canPause = false, canSeek = false, canControl = true
}

/// What a client asked for.
enum ClientRequest: Equatable, Sendable {
    case play, pause, playPause, stop, next, previous
    /// Seconds to move, forward when positive.
    case seek(by: TimeInterval)
    case setPosition(TimeInterval)
    case setRate(Double)
    case setVolume(Double)
}

/// The MPRIS 2 object on the session bus, through the C target's sd-bus vtables: the only caller of `mpris_*`.
///
/// Requests arrive on the server's own thread, through `requests`; `position` is asked there too.
final class MPRISServer: @unchecked Sendable {
    private let server: OpaquePointer
    private let owner: Unmanaged<Owner>

    /// The bus name taken, `org.mpris.MediaPlayer2.NAME` or, when another process has it, `….NAME.instancePID`.
    let busName: String

    private final class Owner {
        let requests: @Sendable (ClientRequest) -> Void
        let position: @Sendable () -> TimeInterval
        init(requests: @escaping @Sendable (ClientRequest) -> Void, position: @escaping @Sendable () -> TimeInterval) {
            self.requests = requests
            self.position = position
        }
    }

    /// Connects to the session bus and publishes `state` as `org.mpris.MediaPlayer2.<name>`.
    ///
    /// - Throws: ``NowPlayingError`` when there is no session bus or the name cannot be taken.
    init(
        name: String, identity: String, state: PublishedState, requests: @escaping @Sendable (ClientRequest) -> Void,
        position: @escaping @Sendable () -> TimeInterval
    ) throws(NowPlayingError) {
        let owner = Unmanaged.passRetained(Owner(requests: requests, position: position))
        let callbacks = mpris_callbacks(
            context: owner.toOpaque(),
            command: { context, command, microseconds, value in
                let owner = Unmanaged<Owner>.fromOpaque(context!).takeUnretainedValue()
                let seconds = Double(microseconds) / 1e6
                let request: ClientRequest = switch command {
                case MPRIS_COMMAND_PLAY: .play
                case MPRIS_COMMAND_PAUSE: .pause
                case MPRIS_COMMAND_PLAY_PAUSE: .playPause
                case MPRIS_COMMAND_STOP: .stop
                case MPRIS_COMMAND_NEXT: .next
                case MPRIS_COMMAND_PREVIOUS: .previous
                case MPRIS_COMMAND_SEEK: .seek(by: seconds)
                case MPRIS_COMMAND_SET_POSITION: .setPosition(seconds)
                case MPRIS_COMMAND_SET_RATE: .setRate(value)
                default: .setVolume(value)
                }
                owner.requests(request)
            },
            position: { context in
                let owner = Unmanaged<Owner>.fromOpaque(context!).takeUnretainedValue()
                return Int64((owner.position() * 1e6).rounded())
            })
        var opened: OpaquePointer?
        let result = Self.withCState(state) { cState in mpris_server_open(name, identity, cState, callbacks, &opened) }
        guard result >= 0, let opened else {
            owner.release()
            throw NowPlayingError(opening: Errno(rawValue: -result))
        }
        server = opened
        self.owner = owner
        busName = String(cString: mpris_server_bus_name(opened))
    }

    deinit {
        mpris_server_close(server)
        owner.release()
    }

    /// Publishes `state`: what changed goes out within 50 ms.
    func update(_ state: PublishedState) {
        _ = Self.withCState(state) { mpris_server_update(server, $0) }
    }

    /// Tells clients the position jumped to `position` seconds (the `Seeked` signal), at once.
    func seeked(to position: TimeInterval) {
        _ = mpris_server_seeked(server, Int64((position * 1e6).rounded()))
    }

    /// Why the server stopped answering (the bus went away), if it did.
    var failure: NowPlayingError? {
        let code = mpris_server_failure(server)
        return code < 0 ? NowPlayingError(serving: Errno(rawValue: -code)) : nil
    }

    private static func withCState<T>(_ state: PublishedState, _ body: (UnsafePointer<mpris_state>) -> T) -> T {
        let texts = [state.playbackStatus.rawValue, state.trackID, state.title, state.artist, state.album, state.artworkURL,
                     state.url, state.contentCreated].map { $0.flatMap { strdup($0) } }
        defer { texts.forEach { free($0) } }
        var cState = mpris_state(
            playback_status: texts[0], track_id: texts[1], title: texts[2], artist: texts[3], album: texts[4],
            art_url: texts[5], url: texts[6], content_created: texts[7],
            length_microseconds: state.length.isFinite ? Int64((state.length * 1e6).rounded()) : 0, rate: state.rate, minimum_rate: state.minimumRate,
            maximum_rate: state.maximumRate, volume: state.volume, can_go_next: state.canGoNext ? 1 : 0,
            can_go_previous: state.canGoPrevious ? 1 : 0, can_play: state.canPlay ? 1 : 0, can_pause: state.canPause ? 1 : 0,
            can_seek: state.canSeek ? 1 : 0, can_control: state.canControl ? 1 : 0)
        return body(&cState)
    }
}
