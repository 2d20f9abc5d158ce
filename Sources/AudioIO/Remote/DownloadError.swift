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
    /// The secure connection failed: the server's certificate is not trusted by the system's certificates, does not
    /// name the host, or the TLS handshake broke; the payload is libcurl's account of it.
    case secureConnectionFailed(String)
    /// The server stopped answering for longer than the transfer waits (connecting, or no byte for 30 s), still after
    /// retries.
    case timedOut
    /// The connection broke mid-way and every attempt to resume it with a range request failed; the payload is
    /// libcurl's account of the last failure.
    case connectionLost(String)
    /// The server redirected the request more than 10 times.
    case tooManyRedirects
    /// The file changed on the server (its ETag or Last-Modified) while it was being read, so the bytes already read
    /// and those to come are of different files.
    case changedOnServer
    /// The address is not one this library downloads: only `http` and `https` are; the payload says what it is.
    case unsupportedAddress(String)
    /// A request header field of the asset's ``AudioAsset/Options`` cannot be sent: its name is not an HTTP token or
    /// is given twice (in another case), its value holds a line break or another control character, or it is one the
    /// download sets itself (`Range`, `If-Range`, `If-None-Match`, `If-Modified-Since`); the payload is the field's
    /// name (never its value, which may be a secret). Nothing was sent.
    case invalidHeaderField(String)

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
        case .secureConnectionFailed(let why):
            "the secure connection failed (TLS: \(why)); the server's certificate is not one this system trusts, or the address is wrong"
        case .timedOut:
            "the server stopped answering; try again later"
        case .connectionLost(let why):
            "the connection broke and could not be resumed (\(why)); try again later"
        case .tooManyRedirects:
            "the server redirected the request more than 10 times; check the address"
        case .changedOnServer:
            "the file changed on the server while it was being read; play or import it again"
        case .unsupportedAddress(let what):
            "\(what) is not an address this can download; give an http or https address, or a file's path"
        case .invalidHeaderField(let name):
            "the request header field '\(name)' cannot be sent: a name is letters, digits and !#$%&'*+-.^_`|~, given once, "
                + "a value is one line, and Range, If-Range, If-None-Match and If-Modified-Since are the download's own"
        }
    }
}
