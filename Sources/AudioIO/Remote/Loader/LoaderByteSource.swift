import Atomics
import Dispatch
import FoundationEssentials
import Synchronization

/// The bytes of an address of the app's own scheme, asked of its ``AssetResourceLoader``'s delegate. The delegate's
/// answers are put in HTTP's terms for the download: its content information is a `200` or `206` head whose validator
/// (ETag) is the content's length — so bytes of the address the cache holds are used again, without a data request,
/// while the length the delegate gives stays the same — and its data the body.
///
/// The content information is asked for alone, once per asset, before its first data request.
/// Without byte ranges, every data request asks for the content from its start to its end.
final class LoaderByteSource: ByteSource, @unchecked Sendable {
    private let url: URL
    private let loader: AssetResourceLoader
    /// The content's length and whether it takes ranges, once the delegate said: the download thread's.
    private var content: (length: Int64, ranges: Bool)?
    private let stopRequested = ManagedAtomic<Bool>(false)
    /// The request under way, for ``interrupt()``.
    private let current = Mutex<AssetResourceLoadingRequest?>(nil)

    init(url: URL, loader: AssetResourceLoader) {
        self.url = url
        self.loader = loader
    }

    func interrupt() {
        stopRequested.store(true, ordering: .releasing)
        current.withLock { $0?.exchange.interrupt() }
    }

    func get(
        _ request: ByteRequest, receive: @escaping (HTTPResponseHead) -> Bool, body: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws(TransferFailure) -> TransferEnd {
        defer { stopRequested.store(false, ordering: .relaxed) }
        var range = request.range.map { ($0.start, $0.end) }
        // Asked once per asset, and for a check of the bytes the cache holds: later requests go by that answer.
        if content == nil || request.ifNoneMatch != nil {
            let information = AssetResourceLoadingContentInformationRequest()
            let asked = AssetResourceLoadingRequest(url: url, contentInformationRequest: information, dataRequest: nil)
            guard try run(asked, body: { _ in true }) == .completed else { return .stopped }
            guard information.contentLength > 0 else { throw Self.failure("it gave no content length") }
            let fresh = (length: information.contentLength, ranges: information.isByteRangeAccessSupported)
            let version = Self.validator(length: fresh.length)
            if let ifNoneMatch = request.ifNoneMatch, ifNoneMatch == version {
                content = fresh
                _ = receive(HTTPResponseHead(status: 304, fields: ["etag": version]))
                return .stopped
            }
            content = fresh
            // Another version than the bytes here: all of it, as a server answers.
            if request.ifNoneMatch != nil { range = nil }
        }
        guard let content else { return .stopped }
        let version = Self.validator(length: content.length)
        if !content.ranges || request.ifRange.map({ $0 != version }) ?? false { range = nil }
        var head = HTTPResponseHead(status: 200, fields: ["etag": version, "content-length": String(content.length)])
        if !content.ranges { head.fields["accept-ranges"] = "none" }
        var start: Int64 = 0
        var end = content.length
        if let range {
            guard range.0 < content.length else {
                return receive(HTTPResponseHead(status: 416, fields: ["content-range": "bytes */\(content.length)"])) ? .completed : .stopped
            }
            start = range.0
            end = min(range.1 ?? content.length, content.length)
            head = HTTPResponseHead(status: 206, fields: ["etag": version, "content-range": "bytes \(start)-\(end - 1)/\(content.length)"])
        }
        guard receive(head) else { return .stopped }
        let data = AssetResourceLoadingDataRequest(
            requestedOffset: start, requestedLength: Int(end - start), requestsAllDataToEndOfResource: end == content.length)
        let asked = AssetResourceLoadingRequest(url: url, contentInformationRequest: nil, dataRequest: data)
        let result = try run(asked, body: body)
        if result == .completed, data.currentOffset < end {
            throw Self.failure("it finished the request for bytes \(start) to \(end - 1) at byte \(data.currentOffset)")
        }
        return result
    }

    /// Hands `request` to the delegate and waits for its answer, giving `body` its bytes: `.completed` once the delegate
    /// finished it, `.stopped` (and the request cancelled) when `body` or ``interrupt()`` stopped it.
    private func run(_ request: AssetResourceLoadingRequest, body: (UnsafeRawBufferPointer) -> Bool) throws(TransferFailure) -> TransferEnd {
        guard let (delegate, queue) = loader.answerer else { throw TransferFailure(error: .loaderRefused, isTransient: false) }
        current.withLock { $0 = request }
        defer { current.withLock { $0 = nil } }
        let loader = loader
        queue.async {
            if !delegate.resourceLoader(loader, shouldWaitForLoadingOfRequestedResource: request) { request.exchange.end(.refused) }
        }
        while true {
            if stopRequested.exchange(false, ordering: .acquiring) { return cancel(request, delegate: delegate, queue: queue) }
            let (bytes, outcome, _) = request.exchange.next()
            for piece in bytes {
                let goOn = piece.withUnsafeBytes { body($0) }
                if !goOn { return cancel(request, delegate: delegate, queue: queue) }
            }
            switch outcome {
            case nil: continue
            case .finished: return .completed
            case .cancelled: return .stopped
            case .refused: throw TransferFailure(error: .loaderRefused, isTransient: false)
            case .failed(let why): throw Self.failure(why)
            }
        }
    }

    private func cancel(_ request: AssetResourceLoadingRequest, delegate: any AssetResourceLoaderDelegate, queue: DispatchQueue) -> TransferEnd {
        // A request given every byte it asked for has nothing left to stop: the body stopping at its last byte (the
        // file whole) does not cancel it, whether or not the delegate has finished it yet.
        if let data = request.dataRequest, data.currentOffset >= data.requestedOffset + Int64(data.requestedLength) { return .stopped }
        if request.exchange.end(.cancelled) {
            let loader = loader
            queue.async { delegate.resourceLoader(loader, didCancel: request) }
        }
        return .stopped
    }

    /// The ETag of content of `length` bytes: what the cache checks its bytes with.
    private static func validator(length: Int64) -> String { "\"length-\(length)\"" }

    private static func failure(_ why: String) -> TransferFailure {
        TransferFailure(error: .loaderFailed(why), isTransient: false)
    }
}
