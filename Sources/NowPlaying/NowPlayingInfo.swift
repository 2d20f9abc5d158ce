import FoundationEssentials

/// What is playing, as `MPNowPlayingInfoCenter.nowPlayingInfo` tells it: the item's facts and where playback stands.
public struct NowPlayingInfo: Equatable, Sendable {
    /// A stable identifier of the item (e.g. a memo's id): letters, digits and `_` make it part of the MPRIS track id.
    public var identifier: String
    public var title: String?
    /// The artist or author.
    public var artist: String?
    public var albumTitle: String?
    /// Length in seconds; 0 when unknown.
    public var playbackDuration: TimeInterval
    /// Seconds into the item at the moment this value is set; clients advance it by ``playbackRate`` from then on.
    public var elapsedPlaybackTime: TimeInterval
    /// The speed, 1 for normal; 0 while paused.
    public var playbackRate: Double
    /// The item's picture, a `file://` or `https://` URL.
    public var artworkURL: URL?
    /// Where the item is.
    public var assetURL: URL?
    /// When the item was made (a memo's recording date).
    public var creationDate: Date?

    public init(
        identifier: String, title: String? = nil, artist: String? = nil, albumTitle: String? = nil,
        playbackDuration: TimeInterval = 0, elapsedPlaybackTime: TimeInterval = 0, playbackRate: Double = 1,
        artworkURL: URL? = nil, assetURL: URL? = nil, creationDate: Date? = nil
    ) {
        self.identifier = identifier
        self.title = title
        self.artist = artist
        self.albumTitle = albumTitle
        self.playbackDuration = playbackDuration
        self.elapsedPlaybackTime = elapsedPlaybackTime
        self.playbackRate = playbackRate
        self.artworkURL = artworkURL
        self.assetURL = assetURL
        self.creationDate = creationDate
    }
}

/// Whether the app is playing, as `MPNowPlayingPlaybackState`.
public enum NowPlayingPlaybackState: Sendable {
    case playing
    case paused
    case stopped
}
