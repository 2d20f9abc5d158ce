/// How far a download has come, as ``RemoteCache/download(_:options:to:progress:)`` reports it while it waits.
public struct DownloadProgress: Sendable, Equatable {
    /// The bytes of the file here: downloaded so far, or found in the cache.
    public var loadedBytes: Int64
    /// The file's length in bytes, once the server has said it; `nil` until then, and for a body sent without a length.
    public var totalBytes: Int64?

    /// Progress of `loadedBytes` of `totalBytes`.
    public init(loadedBytes: Int64, totalBytes: Int64?) {
        self.loadedBytes = loadedBytes
        self.totalBytes = totalBytes
    }
}
