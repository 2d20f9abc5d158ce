import FoundationEssentials

extension BasePlayer {
    /// Whether a player can play: unknown until prepared, then ready, or failed with the reason.
    public enum Status: Equatable, Sendable {
        /// Not prepared yet.
        case unknown
        /// Prepared: the file is open and the device too.
        case readyToPlay
        /// Preparing failed, or the device failed while playing; the payload says why.
        case failed(AudioPlayerError)
    }

    /// Whether playback is under way, as `AVPlayer.TimeControlStatus`: paused, asked to play but waiting (and why), or
    /// playing.
    public enum TimeControlStatus: Equatable, Sendable {
        /// Not playing: not started yet, paused, stopped, or played to the end.
        case paused
        /// Asked to play, and waiting before the first frame is heard, for the reason given.
        case waitingToPlayAtSpecifiedRate(WaitingReason)
        /// Playing: the position moves at the rate.
        case playing
    }

    /// Why a player asked to play does not play yet, as `AVPlayer.WaitingReason`.
    public enum WaitingReason: Equatable, Sendable {
        /// ``AudioPlayer/play(atTime:)`` was given a time the device clock has not reached yet.
        case scheduledStart
        /// The download fell behind and the output waits until enough is buffered, as `.toMinimizeStalls`.
        case toMinimizeStalls
        /// The item is loading, or its first audio is on its way, as `.evaluatingBufferingRate`.
        case evaluatingBufferingRate
        /// The player has no item, as `.noItemToPlay`: it plays once it is given one.
        case noItemToPlay
        /// Another program holds the device (alsa-lib's "busy"): a ``Player`` plays by itself once it lets the device
        /// go, as the session finds (its ``AudioSession/Event/interruptionBegan(_:)`` says
        /// ``AudioSession/InterruptionReason/deviceInUse``). `AVPlayer` has no such reason: its devices are shared.
        case deviceInUse
    }

    /// What `events()` delivers, in the order it happens. What one call changes comes in this order: the status,
    /// ``timeControlStatus``, ``rate`` and a queue's current item as they now are, what happened (a time jump, a start,
    /// items ended), then the end of playback.
    public enum Event: Equatable, Sendable {
        /// ``status`` changed.
        case statusChanged(Status)
        /// ``timeControlStatus`` changed: playing, paused, or waiting for a scheduled start.
        case timeControlStatusChanged(TimeControlStatus)
        /// ``rate`` changed (to the value given, clamped).
        case rateChanged(Float)
        /// A ``Player``'s ``Player/currentItem`` changed, as `AVPlayer.currentItem` does: the next item's first frame was
        /// played, an advance, a replacement or a removal, or a queue ran out (`nil`). An item queued twice in a row is
        /// a change too.
        case currentItemChanged(PlayerItem?)
        /// The position moved other than by playing on, as `AVPlayerItem.timeJumpedNotification` tells: a seek (every
        /// one, also while paused) or a loop starting over. ``currentTime`` is where it went.
        case timeJumped
        /// An ``AudioPlayer``'s first frame was mixed into the device stream, once per playing from the start or from
        /// where ``AudioPlayer/stop()`` left it: a pause and resume, a seek or a change of device goes on playing and
        /// sends no second one.
        case started
        /// A ``Player``'s item played to its end (a queue's next one, if any, is playing already).
        case itemDidPlayToEnd(PlayerItem)
        /// A ``Player``'s item could not be played (to its end): it could not be loaded, changed on the disk since it
        /// was queued, has channels the device cannot take, or reading it failed. A queue's leaves the queue, and the
        /// next one plays.
        case itemDidFailToPlayToEnd(PlayerItem, AudioFileError)
        /// Playback ended: at the end of the last loop or item (true; false for a queue when an item failed on the
        /// way), or early when the device failed (false). A device that vanishes does not end playback: it pauses
        /// where it was, as the session's route change says, and `play()` goes on once the device is back.
        case finishedPlaying(successfully: Bool)
        /// Reading an ``AudioPlayer``'s file failed part-way.
        case decodeError(AudioFileError)
        /// An address's download fell behind: the buffer ran empty, and the output is paused until enough is buffered.
        /// ``isPlaying`` stays true: playback goes on by itself. Only on a device with a clock: one without (ALSA's
        /// `null`, an ``OfflineRenderer``) waits for the audio instead, and never runs dry.
        case playbackStalled
        /// Enough is buffered again after ``playbackStalled``: playback goes on where it stalled.
        case playbackResumed
        /// A live stream's station said what plays now (its `StreamTitle`), and the audio it said it of is being heard:
        /// ``BasePlayer/timedMetadata`` is the payload.
        case timedMetadataChanged(TimedMetadata)
    }
}

extension BasePlayer.Status {
    /// The failure for `error`, thrown while opening the device, or the file at `path` and its pipeline.
    static func failure(_ error: any Error, path: String) -> Self {
        switch error {
        case let error as AudioDeviceError: .failed(.device(error))
        case let error as AudioFileError: .failed(.file(error))
        default: .failed(.file(AudioFileError(path: path, reason: .unsupported("\(error)"))))
        }
    }

    /// Becomes `status`; a change is reported in `events`.
    mutating func change(to status: Self, reporting event: (Self) -> BasePlayer.Event, in events: inout [BasePlayer.Event]) {
        guard self != status else { return }
        self = status
        events.append(event(status))
    }
}
