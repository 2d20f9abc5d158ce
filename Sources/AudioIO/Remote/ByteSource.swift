/// Where a ``RemoteAsset``'s bytes come from: an `http(s)` server through libcurl (``HTTPByteSource``), or an app's
/// ``AssetResourceLoaderDelegate`` (``LoaderByteSource``). The download logic (the sparse cache, read-ahead, claims,
/// waiting readers, retries) is the same over either: a source answers in HTTP's terms (a status, a `Content-Range`,
/// a validator), which a loader's answers are put in.
///
/// **Not thread-safe**, but for ``interrupt()``: one thread (the asset's download thread) fetches.
protocol ByteSource: AnyObject, Sendable {
    /// Asks for `request`'s bytes: hands `receive` the head of the answer (return false to take no body), then `body`
    /// each piece of the body as it arrives (return false to stop).
    ///
    /// - Throws: ``TransferFailure`` when the bytes cannot be had, saying whether trying again may help.
    func get(
        _ request: ByteRequest, receive: @escaping (HTTPResponseHead) -> Bool, body: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws(TransferFailure) -> TransferEnd

    /// Stops the transfer under way, or the next one if none is: from any thread.
    func interrupt()
}

/// What a ``ByteSource`` is asked for: a range or the whole file, and the version the bytes already here are of.
struct ByteRequest {
    /// The bytes asked for from their first to the one after their last (nil: to the end of the file); nil for the whole
    /// file, without a range.
    var range: (start: Int64, end: Int64?)?
    /// `If-Range`: the range if the file is still of this version (an ETag or a Last-Modified date), else the whole file.
    var ifRange: String?
    /// `If-None-Match`: no body (304) if the file is still of this ETag — a check of bytes the cache holds.
    var ifNoneMatch: String?
    /// `If-Modified-Since`: no body (304) if the file has not changed since this date.
    var ifModifiedSince: String?
}
