import FoundationEssentials

/// What an item tells of its playing, as `AVPlayerItem` does: from its player while it is that player's current item,
/// and from what it knows of itself otherwise.
extension PlayerItem {
    /// The player whose current item this is, if any.
    private var playingIn: Player? {
        guard let player = state.withLock({ $0.player }), player.currentItem === self else { return nil }
        return player
    }

    /// Whether the item is an `http` or `https` address.
    private var isAddress: Bool { RemoteAsset.isRemote(url) }

    /// The stretches of the item downloaded, in seconds into it, as `AVPlayerItem.loadedTimeRanges` (see
    /// ``BasePlayer/loadedTimeRanges``): a file's whole length once loaded; an address's, what its player has
    /// downloaded while it is the current item.
    public var loadedTimeRanges: [Range<TimeInterval>] {
        if let player = playingIn { return player.loadedTimeRanges }
        let duration = self.duration
        return !isAddress && duration > 0 ? [0..<duration] : []
    }

    /// Where a seek may go, in seconds, as `AVPlayerItem.seekableTimeRanges`: the whole item once its length is known
    /// (a file, or an address whose server takes byte ranges or is downloaded whole); empty before. For a live HLS
    /// playlist, its window: the span of the segments it listed when its player last read it, on its time line (0 is
    /// the start of the first window read, and ``currentTime()`` counts on it from the live edge, where playing
    /// starts), moving on as the playlist does. A station's live stream cannot be sought: empty.
    public var seekableTimeRanges: [Range<TimeInterval>] {
        let duration = self.duration
        if duration == .infinity { return liveTimeline.window.map { [$0] } ?? [] }
        return duration > 0 && duration.isFinite ? [0..<duration] : []
    }

    /// Whether playing the item waits for its download, as `AVPlayerItem.isPlaybackBufferEmpty`: while it is loading,
    /// and while its player's output waits (a start, a seek or a stall). Never for a file that has loaded.
    public var isPlaybackBufferEmpty: Bool {
        if let player = playingIn { return player.isPlaybackBufferEmpty || status == .unknown }
        return status == .unknown || isAddress
    }

    /// Whether playing the item is likely to go on without stalling, as `AVPlayerItem.isPlaybackLikelyToKeepUp` (see
    /// ``BasePlayer/isPlaybackLikelyToKeepUp``).
    public var isPlaybackLikelyToKeepUp: Bool {
        if let player = playingIn { return player.isPlaybackLikelyToKeepUp }
        return status == .readyToPlay && !isAddress
    }

    /// Whether as much is downloaded ahead of the position as is wanted, as `AVPlayerItem.isPlaybackBufferFull`: the
    /// whole item, or ``preferredForwardBufferDuration`` of it (2 s when that is 0) while it is its player's current
    /// item. Always true for a file that has loaded.
    public var isPlaybackBufferFull: Bool {
        guard status == .readyToPlay else { return false }
        guard isAddress else { return true }
        guard let player = playingIn, case .address(let progress?, _) = player.state.withLock({ player.download(in: $0) })
        else { return false }
        let wanted = preferredForwardBufferDuration > 0 ? preferredForwardBufferDuration : RemoteBuffering.likelyToKeepUpSeconds
        return progress.isLikelyToKeepUp(duration: duration, ahead: wanted)
    }

    /// Seconds into the item of what is heard now, as `AVPlayerItem.currentTime()`: its player's position while it is
    /// the current item, else 0.
    public func currentTime() -> TimeInterval {
        playingIn?.currentTime ?? 0
    }

    /// Moves to `time` seconds into the item and calls `completionHandler` once the seek is complete, as
    /// `AVPlayerItem.seek(to:completionHandler:)` (see ``BasePlayer/seek(to:toleranceBefore:toleranceAfter:completionHandler:)``);
    /// with false at once when the item is not its player's current item.
    public func seek(to time: TimeInterval, completionHandler: @escaping @Sendable (_ finished: Bool) -> Void) {
        guard let player = playingIn else { return completionHandler(false) }
        player.seek(to: time, completionHandler: completionHandler)
    }

    /// Ends a seek still waiting to be heard, as `AVPlayerItem.cancelPendingSeeks()`: its completion handler gets false.
    public func cancelPendingSeeks() {
        playingIn?.cancelPendingSeeks()
    }
}
