import FoundationEssentials

/// What an item's playing of an address fetched, as `AVPlayerItemAccessLog`: an event each time the item starts playing.
public struct PlayerItemAccessLog: Equatable, Sendable {
    /// One playing of the item, as `AVPlayerItemAccessLogEvent`.
    public struct Event: Equatable, Sendable {
        /// The address, without credentials.
        public let uri: String
        /// When the item started playing.
        public let playbackStartDate: Date
        /// Bytes of the item downloaded so far (what the cache held is not counted).
        public internal(set) var numberOfBytesTransferred: Int64
        /// How often playing stalled for the download.
        public internal(set) var numberOfStalls: Int
    }

    /// The events, oldest first.
    public internal(set) var events: [Event] = []
}

/// What went wrong loading or playing an item, as `AVPlayerItemErrorLog`: an event for each failure.
public struct PlayerItemErrorLog: Equatable, Sendable {
    /// One failure, as `AVPlayerItemErrorLogEvent`.
    public struct Event: Equatable, Sendable {
        /// When it happened.
        public let date: Date
        /// The address or file, without credentials.
        public let uri: String
        /// The server's HTTP status, when it answered with a failure; −1 otherwise.
        public let errorStatusCode: Int
        /// `"download"` for a failure to fetch an address, `"file"` for a file that cannot be read as audio.
        public let errorDomain: String
        /// What failed, in one line.
        public let errorComment: String
    }

    /// The events, oldest first.
    public internal(set) var events: [Event] = []
}

extension PlayerItem {
    /// What playing the item fetched, as `AVPlayerItem.accessLog()`: nil for a file, and for an address not yet played.
    public func accessLog() -> PlayerItemAccessLog? {
        let bytes = asset.bytesDownloaded
        return state.withLock { state in
            guard !state.accessLog.events.isEmpty else { return nil }
            var log = state.accessLog
            log.events[log.events.count - 1].numberOfBytesTransferred = bytes
            return log
        }
    }

    /// What went wrong loading or playing the item, as `AVPlayerItem.errorLog()`: nil while nothing has.
    public func errorLog() -> PlayerItemErrorLog? {
        state.withLock { $0.errorLog.events.isEmpty ? nil : $0.errorLog }
    }

    /// The item starts playing: an address's access log gets an event.
    func startedPlaying() {
        guard RemoteAsset.isRemote(url) else { return }
        let bytes = asset.bytesDownloaded
        state.withLock { state in
            if let last = state.accessLog.events.indices.last { state.accessLog.events[last].numberOfBytesTransferred = bytes }
            state.accessLog.events.append(PlayerItemAccessLog.Event(
                uri: RemoteAsset.displayName(of: url), playbackStartDate: Date(), numberOfBytesTransferred: bytes, numberOfStalls: 0))
            state.subscribers.yield([.newAccessLogEntry])
        }
    }

    /// Playing the item stalled for its download.
    func stalled() {
        state.withLock { state in
            if let last = state.accessLog.events.indices.last { state.accessLog.events[last].numberOfStalls += 1 }
            state.subscribers.yield([.playbackStalled])
        }
    }

    /// Playing the item failed for `error` before its end (its file, or the device it was to play on): its error log
    /// gets an event, and it is told.
    func failedToPlayToEnd(_ error: AudioPlayerError) {
        state.withLock { state in
            state.logFailure(error, of: url)
            state.subscribers.yield([.newErrorLogEntry, .failedToPlayToEnd(error)])
        }
    }
}

extension PlayerItem.ItemState {
    /// Adds `error`, a failure to load or play the item at `url`, to the error log.
    mutating func logFailure(_ error: AudioPlayerError, of url: URL) {
        var status = -1
        var domain = "file"
        switch error {
        case .file(let error):
            if case .downloadFailed(let failure) = error.reason {
                domain = "download"
                switch failure {
                case .notFound(let code), .forbidden(let code), .serverError(let code): status = code
                default: break
                }
            }
        case .device:
            domain = "device"
        }
        errorLog.events.append(PlayerItemErrorLog.Event(
            date: Date(), uri: RemoteAsset.displayName(of: url), errorStatusCode: status, errorDomain: domain,
            errorComment: "\(error)"))
    }
}
