import FoundationEssentials
import Synchronization
import SystemEdge

/// One request of an ``AssetResourceLoader`` to its delegate, as `AVAssetResourceLoadingRequest` is: for the content's
/// information or for a range of its bytes; the delegate answers it, then finishes it once.
///
/// **Thread safety**: every member may be used from any thread.
public final class AssetResourceLoadingRequest: Sendable {
    /// The address whose bytes are asked for, as the asset has it.
    public let url: URL
    /// What the content is, when this request asks for it: fill it in, then call ``finishLoading()``; nil otherwise.
    public let contentInformationRequest: AssetResourceLoadingContentInformationRequest?
    /// Which bytes are asked for, when this request asks for bytes: give them with
    /// ``AssetResourceLoadingDataRequest/respond(with:)``, then call ``finishLoading()``; nil otherwise.
    public let dataRequest: AssetResourceLoadingDataRequest?
    let exchange: LoadingExchange

    init(url: URL, contentInformationRequest: AssetResourceLoadingContentInformationRequest?, dataRequest: AssetResourceLoadingDataRequest?) {
        self.url = url
        self.contentInformationRequest = contentInformationRequest
        self.dataRequest = dataRequest
        exchange = dataRequest?.exchange ?? LoadingExchange()
    }

    /// Whether the request was finished, by the delegate or because it was cancelled.
    public var isFinished: Bool { exchange.outcome != nil }

    /// Whether the request is no longer wanted: what it is still given is ignored, and the delegate was told
    /// (``AssetResourceLoaderDelegate/resourceLoader(_:didCancel:)``).
    public var isCancelled: Bool { exchange.outcome == .cancelled }

    /// Finishes the request: its content information is filled in, or every byte it asked for was given. A request
    /// finished, or cancelled, already is left as it is.
    public func finishLoading() { exchange.end(.finished) }

    /// Finishes the request with `error` when it is not nil, failing the asset (and the player of it) with
    /// ``DownloadError/loaderFailed(_:)`` and the error's description; with nil, as ``finishLoading()``.
    public func finishLoading(with error: (any Error)?) {
        exchange.end(error.map { .failed(String(describing: $0)) } ?? .finished)
    }
}

/// What the content of an address is, as `AVAssetResourceLoadingContentInformationRequest` says it: the delegate sets
/// its properties, then finishes the request.
///
/// **Thread safety**: every member may be used from any thread.
public final class AssetResourceLoadingContentInformationRequest: Sendable {
    private let info = Mutex<(type: String?, length: Int64, ranges: Bool)>((nil, 0, false))

    init() {}

    /// The content's type, as a MIME type (`"audio/wav"`) or a file name extension (`"wav"`); nil (the default) when
    /// the bytes tell it. Informational: the file's format is read from its bytes.
    public var contentType: String? {
        get { info.withLock { $0.type } }
        set { info.withLock { $0.type = newValue } }
    }

    /// The content's length in bytes, more than 0: a request finished without it fails the asset with
    /// ``DownloadError/loaderFailed(_:)``. The bytes kept in the cache are used again while the length stays the same.
    public var contentLength: Int64 {
        get { info.withLock { $0.length } }
        set { info.withLock { $0.length = newValue } }
    }

    /// Whether any range of bytes can be read at once; false (the default) when the bytes can only be read from the
    /// start (a stream being decrypted in order): then every data request starts at byte 0 and goes to the end, and a
    /// seek waits until they reach it.
    public var isByteRangeAccessSupported: Bool {
        get { info.withLock { $0.ranges } }
        set { info.withLock { $0.ranges = newValue } }
    }
}

/// Which bytes a loading request asks for, as `AVAssetResourceLoadingDataRequest` says it; the delegate gives them in
/// order with ``respond(with:)``.
///
/// **Thread safety**: every member may be used from any thread.
public final class AssetResourceLoadingDataRequest: Sendable {
    /// The offset of the first byte asked for, from the content's start.
    public let requestedOffset: Int64
    /// How many bytes are asked for, from ``requestedOffset``.
    public let requestedLength: Int
    /// Whether the bytes asked for go to the content's end (a player plays it, or byte ranges are not supported).
    public let requestsAllDataToEndOfResource: Bool
    let exchange = LoadingExchange()

    init(requestedOffset: Int64, requestedLength: Int, requestsAllDataToEndOfResource: Bool) {
        self.requestedOffset = requestedOffset
        self.requestedLength = requestedLength
        self.requestsAllDataToEndOfResource = requestsAllDataToEndOfResource
    }

    /// The offset of the next byte to give: ``requestedOffset`` plus the bytes given so far.
    public var currentOffset: Int64 { requestedOffset + exchange.delivered }

    /// Gives the next bytes, those at ``currentOffset``; bytes past the ``requestedLength`` are dropped, and so are
    /// those given once the request is finished or cancelled.
    public func respond(with data: Data) { exchange.deliver(data, limit: Int64(requestedLength)) }
}

/// What a loading request's delegate has given, from the delegate's threads to the download thread that waits for it.
final class LoadingExchange: @unchecked Sendable {
    /// How a request ended.
    enum Outcome: Equatable {
        case finished
        case failed(String)
        /// The delegate did not take the request.
        case refused
        case cancelled
    }

    private let monitor = Monitor()
    // Under `monitor`.
    private var pending: [Data] = []
    private var deliveredCount: Int64 = 0
    private var ended: Outcome?
    private var isInterrupted = false

    /// How the request ended, nil while it is under way.
    var outcome: Outcome? { monitor.withLock { ended } }

    /// Bytes given so far.
    var delivered: Int64 { monitor.withLock { deliveredCount } }

    func deliver(_ data: Data, limit: Int64) {
        monitor.withLock {
            guard ended == nil, deliveredCount < limit, !data.isEmpty else { return }
            let taken = data.prefix(Int(limit - deliveredCount))
            pending.append(taken)
            deliveredCount += Int64(taken.count)
            monitor.broadcast()
        }
    }

    /// Ends the request with `outcome`, unless it has ended already; whether this ended it.
    @discardableResult
    func end(_ outcome: Outcome) -> Bool {
        monitor.withLock {
            guard ended == nil else { return false }
            ended = outcome
            monitor.broadcast()
            return true
        }
    }

    /// Wakes ``next()``, which returns as if interrupted.
    func interrupt() {
        monitor.withLock {
            isInterrupted = true
            monitor.broadcast()
        }
    }

    /// Waits for bytes, the end, or an interruption: the bytes given since the last call, and the outcome once the
    /// request ended and every byte was taken; `interrupted` when ``interrupt()`` was called.
    func next() -> (bytes: [Data], outcome: Outcome?, interrupted: Bool) {
        monitor.withLock {
            while pending.isEmpty, ended == nil, !isInterrupted { monitor.wait() }
            let bytes = pending
            pending = []
            return (bytes, ended, isInterrupted)
        }
    }
}
