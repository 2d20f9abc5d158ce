import AudioIO
import FoundationEssentials

/// What `voicememo play` plays, and which memos that is: a memo alone (its ``AudioPlayer``), memos started together
/// (a ``PlayerGroup``), or memos one after another (a ``PlayQueue``). The keys, the sleep timer and the remote controls
/// steer ``playback``; the status line and the desktop name the memo heard.
struct PlayedMemos: Sendable {
    let items: [PlayItem]
    let playback: any Playback
    /// Memos played in turn: the queue, which knows the memo heard; nil for a memo alone and memos together.
    let inTurn: PlayQueue?

    /// A memo alone, or memos together: `playback` plays `items`.
    init(_ items: [PlayItem], playedBy playback: any Playback) {
        self.items = items
        self.playback = playback
        inTurn = nil
    }

    /// Memos played in turn.
    init(inTurn queue: PlayQueue) {
        items = queue.items
        playback = queue.queue
        inTurn = queue
    }

    /// The memo heard: the queue's, or the first of memos played together, whose position and waveform are shown.
    var heard: PlayItem? { inTurn.map(\.heard) ?? items.first }

    /// What the status line and the remote controls call what plays: the memo heard, or the titles of memos heard
    /// together (`A + B`).
    /// A live stream's is what its station says plays now, once it says it.
    var title: String {
        if let onAir = (playback as? BasePlayer)?.timedMetadata?.title, !onAir.isEmpty { return onAir }
        return inTurn == nil ? items.map(\.title).joined(separator: " + ") : heard?.title ?? ""
    }

    /// Where the memo heard stands among those played in turn, e.g. the 2nd of 3; nil for a memo alone or together.
    var place: (number: Int, count: Int)? { inTurn?.place }

    /// The markers of the memo heard, in seconds, in order: where `[` and `]` go.
    var markerTimes: [TimeInterval] { heard?.markerTimes ?? [] }

    /// What is downloaded of the address heard, in seconds into it; nil when what is heard is not an address.
    var loadedTimeRanges: [Range<TimeInterval>]? { heard?.isRemote == true ? playback.loadedTimeRanges : nil }

    /// Whether pauses are shortened (see ``BasePlayer/skipsSilence``); never for memos played together, which it would
    /// set apart: setting it changes nothing for them.
    var skipsSilence: Bool {
        get { (playback as? BasePlayer)?.skipsSilence ?? false }
        nonmutating set { (playback as? BasePlayer)?.skipsSilence = newValue }
    }

    /// Seconds of the memos left out as silence so far.
    var skippedSilenceDuration: TimeInterval { (playback as? BasePlayer)?.skippedSilenceDuration ?? 0 }

    /// Goes on with the next memo in turn; nothing after the last, or for a memo alone or together.
    func next() { inTurn?.next() }

    /// Goes back to the memo played before; nothing on the first, or for a memo alone or together.
    func previous() { inTurn?.previous() }

    /// The levels heard since the last reading, per channel of the memos (the loudest of memos played together).
    func levels() -> AudioLevels {
        playback.updateMeters()
        let channels = 0..<max(playback.numberOfChannels, 1)
        return AudioLevels(
            peak: channels.map { Double(playback.peakPower(forChannel: $0)) },
            average: channels.map { Double(playback.averagePower(forChannel: $0)) })
    }

    /// Starts playing, and calls `report` once it has ended: played to its end, or failed. A device another program
    /// holds is waited for: the session starts playback once it is free.
    ///
    /// - Throws: ``AudioPlayerFailure`` when it cannot start.
    func start(reporting report: @escaping @Sendable (PlaybackOutcome) -> Void) throws {
        if let inTurn { return try inTurn.start(reporting: report) }
        let events = playback.events()
        Task { [playback] in
            // A read that failed mid-way (a download that could not be resumed) is told as an event, not a status:
            // kept, so the end says why rather than that playback stopped.
            var failure: AudioFileError?
            for await event in events {
                switch event {
                case .decodeError(let error):
                    failure = error
                case .finishedPlaying(let successfully):
                    return report(successfully ? .finished : .failed(failure.map { .failed(.file($0)) } ?? playback.status))
                default:
                    break
                }
            }
        }
        guard playback.play() || playback.status.isWaitingForDevice else { throw AudioPlayerFailure(status: playback.status) }
    }
}

/// How ``PlayedMemos`` ended by themselves.
enum PlaybackOutcome: Sendable {
    /// Everything played to its end.
    case finished
    /// Playing failed, for the reason in `status`.
    case failed(AudioPlayer.Status)
}
