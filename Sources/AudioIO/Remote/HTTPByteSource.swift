import FoundationEssentials

/// The bytes of an `http` or `https` address, asked for with GETs on one ``HTTPConnection``: a ``ByteRequest`` becomes
/// the `Range` and conditional header lines, after the asset's own.
final class HTTPByteSource: ByteSource, @unchecked Sendable {
    private let url: URL
    /// The asset's own header lines, sent before each request's.
    private let headers: [String]
    private let connection: HTTPConnection

    init(url: URL, headers: [String], connection: HTTPConnection) {
        self.url = url
        self.headers = headers
        self.connection = connection
    }

    func get(
        _ request: ByteRequest, receive: @escaping (HTTPResponseHead) -> Bool, body: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws(TransferFailure) -> TransferEnd {
        var lines: [String] = []
        if let ifNoneMatch = request.ifNoneMatch { lines.append("If-None-Match: \(ifNoneMatch)") }
        if let ifModifiedSince = request.ifModifiedSince { lines.append("If-Modified-Since: \(ifModifiedSince)") }
        if let range = request.range {
            lines.append("Range: bytes=\(range.start)-\(range.end.map { String($0 - 1) } ?? "")")
        }
        if let ifRange = request.ifRange { lines.append("If-Range: \(ifRange)") }
        return try connection.get(url.absoluteString, headers: headers + lines, receive: receive, body: body)
    }

    func interrupt() { connection.interrupt() }
}
