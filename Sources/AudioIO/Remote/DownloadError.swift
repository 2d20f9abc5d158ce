/// Why the bytes of an `http` or `https` address could not be had, named for what happened: the server's answer
/// (404, 403, …), the name lookup, the connection, the secure (TLS) handshake, a timeout.
///
/// It reaches callers as ``AudioFileError/Reason/downloadFailed(_:)``, whose description names the address; this
/// one's description is the rest of the sentence: what happened and what to do.
public enum DownloadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server has no file at the address: HTTP 404 (Not Found) or 410 (Gone); the payload is the status.
    case notFound(status: Int)
    /// The server refuses to give the file: HTTP 401 (Unauthorized) or 403 (Forbidden); the payload is the status.
    case forbidden(status: Int)
    /// The server answered another error status (4xx, or 5xx still after retries); the payload is the status.
    case serverError(status: Int)
    /// The host's name was not found (DNS); the payload is the name.
    case hostNotFound(String)
    /// No connection could be made to the server (refused, unreachable), still after retries; the payload is
    /// libcurl's account of it.
    case cannotConnect(String)
    /// No connection to the server was made within the connect timeout (15 s): the server neither accepted nor
    /// refused it (a host that is down behind a firewall, a listener that never accepts); the payload is the timeout
    /// in seconds.
    case connectTimedOut(seconds: Double)
    /// The server's certificate is not trusted: no certificate authority the system trusts (or, with
    /// ``AudioAsset/Options/certificateAuthorityFile``, none in that file) signed it, or it does not name the host; the
    /// payload is libcurl's account of it. The corresponding libcurl error is `CURLE_PEER_FAILED_VERIFICATION`.
    case untrustedCertificate(String)
    /// The secure connection failed otherwise: the TLS handshake broke, no cipher is shared, or the CA file cannot be
    /// read; the payload is libcurl's account of it.
    case secureConnectionFailed(String)
    /// The server sent no byte for the stall timeout (30 s), still after retries; the payload is the timeout in
    /// seconds.
    case stalled(seconds: Double)
    /// The connection broke mid-way and every attempt to resume it with a range request failed; the payload is
    /// libcurl's account of the last failure.
    case connectionLost(String)
    /// The server redirected the request more than 10 times.
    case tooManyRedirects
    /// The server answered HTTP 416 (Range Not Satisfiable) to the first request for the file: it cannot give the
    /// bytes asked for, from the first.
    case rangeNotSatisfiable
    /// The server's lengths disagree: a `Content-Length` other than the bytes its `Content-Range` names, or a file
    /// that ends before the length it gave (its ETag unchanged); the payload is the length said and the one the server
    /// then sent or said. The bytes at the wrong length are not used.
    case wrongLength(said: Int64, sent: Int64)
    /// The file changed on the server (its ETag or Last-Modified) while it was being read, so the bytes already read
    /// and those to come are of different files.
    case changedOnServer
    /// The address is not one this library downloads: only `http` and `https` are, and another scheme only through an
    /// ``AudioAsset/resourceLoader`` with a delegate; the payload says what it is.
    case unsupportedAddress(String)
    /// The app's ``AssetResourceLoaderDelegate`` did not take a request for the bytes: it answered false to
    /// ``AssetResourceLoaderDelegate/resourceLoader(_:shouldWaitForLoadingOfRequestedResource:)``, or the asset's
    /// ``AudioAsset/resourceLoader`` had no delegate when the bytes were wanted.
    case loaderRefused
    /// The app's ``AssetResourceLoaderDelegate`` finished a request with an error
    /// (``AssetResourceLoadingRequest/finishLoading(with:)``), or answered what cannot be used (no content length,
    /// fewer bytes than asked for); the payload is the error's description, or what was wrong.
    case loaderFailed(String)
    /// A request header field of the asset's ``AudioAsset/Options`` cannot be sent: its name is not an HTTP token or
    /// is given twice (in another case), its value holds a line break or another control character, or it is one the
    /// download sets itself (`Range`, `If-Range`, `If-None-Match`, `If-Modified-Since`); the payload is the field's
    /// name (never its value, which may be a secret). Nothing was sent.
    case invalidHeaderField(String)
    /// The address is a live stream (an Icecast or SHOUTcast station): it never ends, so it cannot be downloaded
    /// whole (imported, cached); it plays as it comes, through ``AudioFile``, ``AudioPlayer`` or ``Player``.
    case liveStream

    public var description: String {
        switch self {
        case .notFound(let status):
            "the server has no file at this address (HTTP \(status)); check the address"
        case .forbidden(let status):
            "the server refuses to give the file (HTTP \(status)); check the address, or whether it needs signing in"
        case .serverError(let status):
            "the server answered with an error (HTTP \(status)); try again later"
        case .hostNotFound(let host):
            "no host named '\(host)' was found (DNS); check the address and the network"
        case .cannotConnect(let why):
            "could not connect to the server (\(why)); check the address, and that the server runs and the network is up"
        case .connectTimedOut(let seconds):
            "the server did not answer the connection within \(Self.seconds(seconds)); check the address, and that the server runs "
                + "and the network is up"
        case .untrustedCertificate(let why):
            "the server's certificate is not trusted (TLS: \(why)); check the address, or, if the server's certificate authority "
                + "is one you trust, give its certificate as a CA file"
        case .secureConnectionFailed(let why):
            "the secure connection failed (TLS: \(why)); check the address, or try again later"
        case .stalled(let seconds):
            "the server stopped sending for \(Self.seconds(seconds)) and did not resume; try again later"
        case .connectionLost(let why):
            "the connection broke and could not be resumed (\(why)); try again later"
        case .tooManyRedirects:
            "the server redirected the request more than 10 times (a redirect loop); check the address"
        case .rangeNotSatisfiable:
            "the server cannot give the file's bytes (HTTP 416, Range Not Satisfiable); check the address, or try again later"
        case .wrongLength(let said, let sent):
            "the server gave the length \(said) bytes, then \(sent): its Content-Length is wrong; try again later"
        case .changedOnServer:
            "the file changed on the server while it was being read; play or import it again"
        case .unsupportedAddress(let what):
            "\(what) is not an address this can download; give an http or https address, a file's path, or an asset with a resource loader"
        case .loaderRefused:
            "the app's resource loader did not take the request for the bytes; set a delegate that answers this address's scheme"
        case .loaderFailed(let why):
            "the app's resource loader failed (\(why)); check the loader, or try again"
        case .invalidHeaderField(let name):
            "the request header field '\(name)' cannot be sent: a name is letters, digits and !#$%&'*+-.^_`|~, given once, "
                + "a value is one line, and Range, If-Range, If-None-Match and If-Modified-Since are the download's own"
        case .liveStream:
            "it is a live stream, which never ends and cannot be downloaded whole; play it instead"
        }
    }

    /// `seconds` as a sentence says it: "15 s", "0.5 s".
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
