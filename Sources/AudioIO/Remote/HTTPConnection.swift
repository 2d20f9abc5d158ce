import Atomics
import CCurl
import Synchronization

/// What a server answered before the body: the status and the headers of the last response (after redirects).
struct HTTPResponseHead: Sendable {
    /// The HTTP status, e.g. 200, 206, 304, 404.
    var status: Int
    /// Header fields by lowercase name; a repeated field keeps its last value.
    var fields: [String: String]

    /// `Content-Range: bytes FIRST-LAST/TOTAL` of a 206: the first and last bytes, and the total length when the server
    /// knows it.
    var contentRange: (first: Int64, last: Int64, total: Int64?)? {
        guard let value = fields["content-range"], value.hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/")
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let first = Int64(parts[0][..<dash]),
              let last = Int64(parts[0][parts[0].index(after: dash)...])
        else { return nil }
        return (first, last, Int64(parts[1]))
    }

    /// The total length of `Content-Range: bytes */TOTAL`, as a 416 says it.
    var unsatisfiedRangeTotal: Int64? {
        guard let value = fields["content-range"], value.hasPrefix("bytes */") else { return nil }
        return Int64(value.dropFirst(8))
    }

    /// Whether the response is a live stream's: an Icecast or SHOUTcast server's (`icy-` and `ice-` fields, which
    /// files do not have), a body without an end.
    var isLiveStream: Bool { fields.keys.contains { $0.hasPrefix("icy-") || $0.hasPrefix("ice-") } }

    /// `Content-Length`: the bytes of this body.
    var contentLength: Int64? { fields["content-length"].flatMap { Int64($0) } }
    /// `ETag`, as the server wrote it (quotes and `W/` kept).
    var entityTag: String? { fields["etag"] }
    /// `Last-Modified`, as the server wrote it.
    var lastModified: String? { fields["last-modified"] }
}

/// How a transfer ended when it did not fail.
enum TransferEnd {
    /// The server sent the whole body.
    case completed
    /// The receiver, or ``HTTPConnection/interrupt()``, stopped it.
    case stopped
}

/// A failed transfer: what happened, and whether trying again may help (a dropped connection, a timeout, a 503) or
/// cannot (a 404, a name that does not exist, a certificate not trusted).
struct TransferFailure: Error {
    let error: DownloadError
    let isTransient: Bool
}

/// How long a transfer waits before it fails as timed out.
struct TransferTimeouts: Sendable, Hashable {
    /// For the connection: the name lookup, the TCP handshake and the TLS handshake.
    var connect: Duration = .seconds(15)
    /// For a byte, once connected: no byte for this long is a stalled transfer. libcurl counts whole seconds (1 s at
    /// least).
    var stall: Duration = .seconds(30)
    /// The first wait before a failed transfer is tried again; each wait after it doubles, to 16 times this.
    var firstRetry: Duration = .milliseconds(250)
}

/// The one owner of libcurl's handles: HTTP GETs one after another on a connection kept open between them, each
/// stoppable from another thread at once. Redirects are followed (10 at most, http and https only), TLS checks the
/// server against the system's certificates (or those of a CA file instead), and a connection that neither connects
/// within its ``TransferTimeouts/connect`` time (15 s) nor moves a byte for its ``TransferTimeouts/stall`` time (30 s)
/// times out. A redirect to another origin (scheme, host or port) drops the `Authorization` and `Cookie` lines of the
/// request's headers; other lines go on. Nothing outside `Remote/` sees libcurl.
///
/// **Not thread-safe**, but for ``interrupt()``: one thread runs transfers.
final class HTTPConnection: @unchecked Sendable {
    private let easy: UnsafeMutableRawPointer
    private let multi: UnsafeMutableRawPointer
    private let stopRequested = ManagedAtomic<Bool>(false)
    private let userAgent: String
    private let certificateAuthorityFile: String?
    private let timeouts: TransferTimeouts
    private var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))

    /// What the callbacks of the transfer under way work on.
    private final class Transfer {
        var head = HTTPResponseHead(status: 0, fields: [:])
        var headGiven = false
        var receiverStopped = false
        let easy: UnsafeMutableRawPointer
        let receive: (HTTPResponseHead) -> Bool
        let body: (UnsafeRawBufferPointer) -> Bool

        init(easy: UnsafeMutableRawPointer, receive: @escaping (HTTPResponseHead) -> Bool, body: @escaping (UnsafeRawBufferPointer) -> Bool) {
            self.easy = easy
            self.receive = receive
            self.body = body
        }

        /// Hands the head over once, with the status libcurl settled on; false when the receiver wants no body.
        func giveHead() -> Bool {
            guard !headGiven else { return !receiverStopped }
            headGiven = true
            var status = 0
            _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            head.status = status
            if !receive(head) { receiverStopped = true }
            return !receiverStopped
        }
    }

    /// libcurl, opened the first time a connection is made rather than when the process starts (`ccurl_load`: linked,
    /// it and the libraries it brings would be loaded by every start), and initialised once, before any handle
    /// (`curl_global_init` is not thread-safe). `nil` when it is ready, else the dynamic loader's sentence for what is
    /// missing; ``RemoteAsset`` looks before it makes a connection.
    static let libraryFailure: String? = {
        if let failure = ccurl_load() { return String(cString: failure) }
        _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return nil
    }()

    /// The `User-Agent` of a request whose asset names none.
    static let defaultUserAgent = "voicememo-AudioIO (libcurl)"

    /// A connection whose requests say they come from `userAgent`, trust the certificate authorities of the PEM file
    /// `certificateAuthorityFile` instead of the system's when one is given, and wait as long as `timeouts` say.
    ///
    /// The corresponding C functions are `curl_easy_init` and `curl_multi_init`.
    ///
    /// - Precondition: ``libraryFailure`` is `nil`.
    init(userAgent: String = defaultUserAgent, certificateAuthorityFile: String? = nil, timeouts: TransferTimeouts = TransferTimeouts()) {
        precondition(Self.libraryFailure == nil, "libcurl could not be loaded")
        guard let easy = curl_easy_init(), let multi = curl_multi_init() else { preconditionFailure("libcurl could not allocate a handle") }
        self.easy = easy
        self.multi = multi
        self.userAgent = userAgent
        self.certificateAuthorityFile = certificateAuthorityFile
        self.timeouts = timeouts
    }

    deinit {
        curl_multi_cleanup(multi)
        curl_easy_cleanup(easy)
    }

    /// Stops the transfer under way, or the next one before it starts, from any thread.
    ///
    /// The corresponding C function is `curl_multi_wakeup`.
    func interrupt() {
        stopRequested.store(true, ordering: .releasing)
        curl_multi_wakeup(multi)
    }

    /// GETs `url` with the extra header lines `headers` (e.g. `Range: bytes=100-`): hands `receive` the head of the
    /// response (return false to take no body), then `body` each piece of the body as it arrives (return false to stop).
    ///
    /// The corresponding C functions are `curl_easy_setopt`, `curl_multi_add_handle`, `curl_multi_perform`,
    /// `curl_multi_poll` and `curl_multi_info_read`.
    ///
    /// - Throws: ``TransferFailure`` when the transfer fails; an HTTP error status is not a failure here but a head
    ///   like any other.
    func get(
        _ url: String, headers: [String], receive: @escaping (HTTPResponseHead) -> Bool,
        body: @escaping (UnsafeRawBufferPointer) -> Bool
    ) throws(TransferFailure) -> TransferEnd {
        if stopRequested.exchange(false, ordering: .acquiring) { return .stopped }
        let transfer = Transfer(easy: easy, receive: receive, body: body)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var list: UnsafeMutablePointer<curl_slist>?
        for line in headers { list = curl_slist_append(list, line) }
        defer { curl_slist_free_all(list) }
        errorBuffer.withUnsafeMutableBufferPointer { $0[0] = 0 }
        configure(url: url, headers: list, context: context)
        curl_multi_add_handle(multi, easy)
        defer { curl_multi_remove_handle(multi, easy) }
        var result: CURLcode?
        while result == nil {
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                if ccurl_message_is_done(message) != 0 { result = ccurl_message_result(message) }
            }
            if result != nil { break }
            if stopRequested.exchange(false, ordering: .acquiring) { return .stopped }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        stopRequested.store(false, ordering: .relaxed)
        switch result! {
        case CURLE_OK:
            // A response without a body (304, an empty file) is handed over here.
            return transfer.giveHead() ? .completed : .stopped
        case CURLE_WRITE_ERROR where transfer.receiverStopped, CURLE_ABORTED_BY_CALLBACK:
            return .stopped
        case let code:
            throw failure(code, url: url)
        }
    }

    private func configure(url: String, headers: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer) {
        curl_easy_reset(easy)
        _ = ccurl_setopt_string(easy, CURLOPT_URL, url)
        _ = ccurl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_MAXREDIRS, 10)
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(timeouts.connect / .milliseconds(1)))
        // No byte for the stall time is a stalled connection: it is dropped and resumed.
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Int((timeouts.stall / .seconds(1)).rounded(.up))))
        // In place of the system's bundle: a private CA's certificate is all a private server needs.
        if let certificateAuthorityFile { _ = ccurl_setopt_string(easy, CURLOPT_CAINFO, certificateAuthorityFile) }
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, userAgent)
        _ = ccurl_setopt_list(easy, CURLOPT_HTTPHEADER, headers)
        // libcurl's default, said here because the asset's Authorization and Cookie lines depend on it: since 7.83 it
        // sends them only to the first request's origin (RemoteHeaderTests checks it against two origins).
        _ = ccurl_setopt_long(easy, CURLOPT_UNRESTRICTED_AUTH, 0)
        errorBuffer.withUnsafeMutableBufferPointer { _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, $0.baseAddress) }
        _ = ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = ccurl_setopt_function(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                // A new response (after a redirect, or a 100 Continue): its fields replace the last one's.
                transfer.head.fields = [:]
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
                    .reversed().drop { $0.isWhitespace }.reversed()
                transfer.head.fields[name] = String(value)
            }
            return size * count
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_function(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            guard transfer.giveHead() else { return 0 }
            if transfer.body(UnsafeRawBufferPointer(start: data, count: size * count)) { return size * count }
            transfer.receiverStopped = true
            return 0
        }
    }

    /// The failure for libcurl's `code`, named for what happened.
    private func failure(_ code: CURLcode, url: String) -> TransferFailure {
        let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let why = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return TransferFailure(error: .hostNotFound(Self.host(of: url)), isTransient: false)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY:
            return TransferFailure(error: .cannotConnect(why), isTransient: true)
        case CURLE_OPERATION_TIMEDOUT:
            // Connected is when libcurl noted a connect time (a connection reused notes one too).
            var connected: curl_off_t = 0
            _ = ccurl_getinfo_offset(easy, CURLINFO_CONNECT_TIME_T, &connected)
            let error: DownloadError = connected > 0
                ? .stalled(seconds: max(1, (timeouts.stall / .seconds(1)).rounded(.up)))
                : .connectTimedOut(seconds: timeouts.connect / .seconds(1))
            return TransferFailure(error: error, isTransient: true)
        case CURLE_PEER_FAILED_VERIFICATION:
            return TransferFailure(error: .untrustedCertificate(why), isTransient: false)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED:
            return TransferFailure(error: .secureConnectionFailed(why), isTransient: false)
        case CURLE_TOO_MANY_REDIRECTS:
            return TransferFailure(error: .tooManyRedirects, isTransient: false)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return TransferFailure(error: .unsupportedAddress("'\(url)'"), isTransient: false)
        default:
            // Dropped connections, partial bodies, a server that sent nothing: resumed with a range request.
            return TransferFailure(error: .connectionLost(why), isTransient: true)
        }
    }

    /// The host part of `url`, for the message of a failed name lookup.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        rest = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        if rest.hasPrefix("[") { return String(rest.prefix { $0 != "]" }.dropFirst()) }
        return String(rest.prefix { $0 != ":" })
    }

    /// The version of libcurl running, e.g. "libcurl 7.88.1", or why it could not be loaded.
    ///
    /// The corresponding C function is `curl_version_info`.
    static var libraryVersion: String {
        if let libraryFailure { return "libcurl could not be loaded (\(libraryFailure))" }
        guard let info = ccurl_version_info(), let version = info.pointee.version else { return "libcurl" }
        return "libcurl " + String(cString: version)
    }
}

extension MissingLibraryError {
    /// libcurl (`libcurl.so.4`, ``HTTPConnection/libraryFailure``), which downloading needs, could not be loaded:
    /// `reason` is the dynamic loader's sentence.
    package static func libcurl(reason: String) -> MissingLibraryError {
        MissingLibraryError(
            feature: "downloading", library: "libcurl", reason: reason, unaffected: "files work without it",
            packages: ["libcurl4"])
    }
}
