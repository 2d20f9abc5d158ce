import FoundationEssentials

/// What a live stream says as it plays, at the time it says it, as `AVPlayerItem.timedMetadata` carries it: an Icecast
/// or SHOUTcast station's `StreamTitle` (the song or show on air now) and `StreamUrl`.
public struct TimedMetadata: Equatable, Sendable {
    /// What the station says plays now, e.g. "Artist - Song": `StreamTitle`, without control characters; `nil` when it
    /// says none.
    public let title: String?
    /// The link the station gives with it (`StreamUrl`), when it gives one.
    public let url: String?
    /// Seconds into the stream (counted from when it was opened) where it starts to be heard.
    public let time: TimeInterval

    init(_ metadata: IcyMetadata, time: TimeInterval) {
        title = metadata.title
        url = metadata.url
        self.time = time
    }
}
