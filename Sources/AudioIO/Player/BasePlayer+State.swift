import FoundationEssentials

extension BasePlayer {
    /// Everything mutable about a player, guarded by its mutex: what both players hold, then what each adds
    /// (``file`` for an ``AudioPlayer``, ``queue`` for an ``AudioQueuePlayer``).
    struct State {
        var deviceName: String?
        /// The session it joins (tests give one of their own).
        var session = AudioSession.shared
        var status = Status.unknown
        var isPlaying = false
        var controls: PlaybackControls
        /// The position while no voice is prepared (and where the next one starts), in seconds into what plays.
        var time: TimeInterval = 0
        var engine: StreamEngine?
        var voice: Voice?
        var decoder: PlaybackDecoder?
        var isInMix = false
        var observers = TimeObservers()
        var seeks = SeekCompletions()
        var subscribers = EventSubscribers<Event>()
        var listeners = EventListeners<Event>()
        /// What `renderedAudio()` streams, once asked for.
        var tap: PlayerTap?
        /// Seconds of silence skipped by the voices let go (since playback last started afresh, for an ``AudioPlayer``).
        var skippedBefore: TimeInterval = 0
        /// Playing was asked for a device time still ahead (``AudioPlayer/play(atTime:)``), and the voice has not started.
        var waitsForScheduledStart = false
        /// Playing was asked for, and nothing can play yet, for this reason (an item loading, none to play, the device
        /// held by another program).
        var waitingReason: WaitingReason?
        /// The device another program held at the last start, while ``waitingReason`` says so.
        var heldDevice: String?
        /// Whether the output waits for enough of an address at a start, a seek or a stall
        /// (``Player/automaticallyWaitsToMinimizeStalling``).
        var waitsToMinimizeStalls = true

        /// Whether the output waits for an address's download.
        var buffering = RemoteBuffering()
        /// Whether a thread looks at the buffer: since an address was first played.
        var watchesDownloads = false
        /// The addresses the decoder opened, by item (an ``AudioPlayer``'s is item 0).
        var readers: [Int: OpenedAddress] = [:]
        /// The item the decoder reads.
        var reading: Int?
        /// The decoder opens the next item, an address: it waits for its header, which may take any time.
        var opensAddress = false
        /// What a live stream's station said, read by the decoder and not yet heard: by the voice's item.
        var unheardMetadata: [(item: Int, metadata: TimedMetadata)] = []
        /// What the station said last, as heard.
        var timedMetadata: TimedMetadata?

        /// What ``BasePlayer/withState(_:)`` left to call outside the lock, in order, and whether a thread is calling it.
        var undelivered: [Delivery] = []
        var isDelivering = false

        /// What an ``AudioPlayer`` adds: its file's loops, range and loading.
        var file = AudioPlayer.FileState()
        /// What a ``Player`` adds: its items.
        var queue = Player.QueueState()

        init(controls: PlaybackControls = PlaybackControls()) {
            self.controls = controls
        }

        /// Seconds into what plays of what is heard now: the position of the last frame mixed, less what the device
        /// still holds queued in front of it (a sound server may hold a second or more).
        var currentTime: TimeInterval {
            voice?.heardPosition(on: engine, isPlaying: isPlaying, rate: controls.effectiveRate, startedAt: time) ?? time
        }

        var timeControlStatus: TimeControlStatus {
            guard isPlaying else { return .paused }
            if let waitingReason { return .waitingToPlayAtSpecifiedRate(waitingReason) }
            if waitsForScheduledStart { return .waitingToPlayAtSpecifiedRate(.scheduledStart) }
            switch buffering.wait {
            case .starting: return .waitingToPlayAtSpecifiedRate(.evaluatingBufferingRate)
            case .stalled: return .waitingToPlayAtSpecifiedRate(.toMinimizeStalls)
            case nil: return .playing
            }
        }

        /// Seconds skipped as silence so far, as heard.
        var skippedSilence: TimeInterval {
            skippedBefore + (voice?.skipped ?? 0)
        }

        /// Whether the decoder waits for bytes: of the address it reads, or to open the next.
        var decoderWaits: Bool {
            opensAddress || reading.flatMap { readers[$0] }?.isWaiting == true
        }

        /// Lets go of the voice and its decoder; the engine drops the voice at its next period.
        mutating func release() {
            skippedBefore = skippedSilence
            if isInMix {
                voice?.removalRequested.store(true, ordering: .releasing)
                engine?.wake()
            }
            decoder?.stop()
            // A decoder waiting for bytes no one will hear ends now.
            readers.values.forEach { $0.cancel() }
            readers.removeAll()
            reading = nil
            opensAddress = false
            unheardMetadata.removeAll()
            buffering.reset()
            voice = nil
            decoder = nil
            isInMix = false
            isPlaying = false
            waitsForScheduledStart = false
            waitingReason = nil
            observers.voiceReleased()
        }
    }

    /// What one call under the lock leaves to call once it is let go.
    struct Delivery {
        let events: [Event]
        let listeners: [@Sendable (Event) -> Void]
        let completions: [(handler: SeekCompletions.Handler, finished: Bool)]
        let observerCalls: [TimeObservers.Call]

        var isEmpty: Bool { events.isEmpty && completions.isEmpty && observerCalls.isEmpty }
    }

    /// An address the decoder opened: its reader (or its live stream), and its length in seconds.
    struct OpenedAddress {
        let duration: TimeInterval
        private let reader: RemoteReader?
        private let live: LiveStream?
        /// Held while the player reads it: it downloads to its end.
        private let wholeDownload: WholeDownloadClaim?

        /// What `file` reads from its address; nil for a file.
        init?(_ file: AudioFile) {
            guard file.remote != nil || file.live != nil else { return nil }
            duration = file.duration
            reader = file.remote
            live = file.live
            wholeDownload = file.remote?.asset.claimWhole()
        }

        /// What is downloaded of it; nil for a live stream, which keeps nothing.
        var progress: RemoteAsset.Progress? { reader?.asset.progress }

        /// Whether the decoder waits for its bytes.
        var isWaiting: Bool { (reader?.isWaiting ?? live?.isWaiting)?.load(ordering: .relaxed) ?? false }

        /// Ends a read waiting for bytes no one will hear; a live stream stops receiving.
        func cancel() {
            reader?.cancel()
            live?.close()
        }
    }

    /// What is downloaded of what a player plays now.
    enum ItemDownload {
        /// Nothing plays (an empty queue).
        case nothing
        /// A file or data, of `duration` seconds: all there.
        case file(duration: TimeInterval)
        /// An address of `duration` seconds (0 until known, infinite for a live stream); its progress once it is opened
        /// (never, for a live stream).
        case address(RemoteAsset.Progress?, duration: TimeInterval)
    }
}
