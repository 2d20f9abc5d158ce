import FoundationEssentials

extension AudioAsset {
    /// How an `http` or `https` address is asked for, as `AVURLAsset`'s options (`AVURLAssetHTTPHeaderFieldsKey`,
    /// `AVURLAssetHTTPUserAgentKey`) say: what a private podcast feed or a memo server that signs users in needs.
    ///
    /// ```swift
    /// let options = AudioAsset.Options(httpHeaderFields: ["Authorization": "Bearer \(token)"])
    /// let player = try AudioPlayer(contentsOf: episode, options: options)
    /// ```
    ///
    /// The fields go on every request for the address: the first, each byte range, each retry after the connection
    /// dropped, and each redirect to the same origin (scheme, host and port). A redirect to another origin drops
    /// `Authorization` and `Cookie`, as browsers and curl do; other fields go on. Unused for a file.
    ///
    /// A server whose certificate a private certificate authority signed (a memo server at home, a company's) is
    /// trusted through ``certificateAuthorityFile``:
    ///
    /// ```swift
    /// let options = AudioAsset.Options(certificateAuthorityFile: URL(fileURLWithPath: "/etc/memo-server/ca.pem"))
    /// ```
    public struct Options: Sendable, Equatable {
        /// Header fields sent with every request, by name (`"Authorization"`, `"Cookie"`, `"Referer"`); empty by
        /// default. A name is an HTTP token (letters, digits, the backtick and `!#$%&'*+-.^_|~`), given once whatever
        /// its case; a value is one line. `Range`, `If-Range`, `If-None-Match` and `If-Modified-Since` are the
        /// download's own and cannot be given.
        public var httpHeaderFields: [String: String]
        /// The `User-Agent` field; nil (the default) sends `voicememo-AudioIO (libcurl)`. A `User-Agent` in
        /// ``httpHeaderFields`` wins over it.
        public var httpUserAgent: String?
        /// A PEM file of the certificate authorities (CAs) whose certificates `https` servers are checked against,
        /// instead of the system's; nil (the default) trusts the system's. Without it, a server whose certificate a
        /// private CA signed fails with ``DownloadError/untrustedCertificate(_:)``. A file that cannot be read fails
        /// with ``DownloadError/secureConnectionFailed(_:)``.
        ///
        /// The corresponding libcurl option is `CURLOPT_CAINFO`.
        public var certificateAuthorityFile: URL?
        /// How long a transfer waits for a connection and for a byte: fixed for users, shortened by tests.
        var timeouts = TransferTimeouts()
        /// The resource loader of the asset these options are of, which answers for an address of another scheme.
        var resourceLoader: LoaderReference?

        /// Options with the header fields `httpHeaderFields`, the user agent `httpUserAgent` and the CA file
        /// `certificateAuthorityFile`; the defaults send no field of their own and the library's user agent, and trust
        /// the system's certificate authorities.
        public init(httpHeaderFields: [String: String] = [:], httpUserAgent: String? = nil, certificateAuthorityFile: URL? = nil) {
            self.httpHeaderFields = httpHeaderFields
            self.httpUserAgent = httpUserAgent
            self.certificateAuthorityFile = certificateAuthorityFile
        }

        /// The fields the download sets itself: given here, they would break its ranges and checks.
        private static let reservedNames: Set<String> = ["range", "if-range", "if-none-match", "if-modified-since"]

        /// Checks that every field can be sent, as opening an address with these options does first: for a program
        /// that takes headers from its user, to say what is wrong before anything is opened.
        ///
        /// - Throws: ``DownloadError/invalidHeaderField(_:)`` naming the first field (in order of their names) that
        ///   cannot be sent as it is.
        public func validate() throws(DownloadError) {
            var names: Set<String> = []
            for (name, value) in sortedFields {
                // Names are case-insensitive: "Authorization" and "authorization" would be two fields sent.
                guard Self.isToken(name), Self.isFieldValue(value), !Self.reservedNames.contains(name.lowercased()),
                      names.insert(name.lowercased()).inserted
                else { throw .invalidHeaderField(name) }
            }
            if let httpUserAgent, !Self.isFieldValue(httpUserAgent) { throw .invalidHeaderField("User-Agent") }
        }

        /// The fields in order of their names, whatever their case (then uppercase first): the order of the lines sent.
        private var sortedFields: [(key: String, value: String)] {
            httpHeaderFields.sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
        }

        /// The header lines to send (`Name: value`, in order of their names) and the user agent, once every field is
        /// checked.
        ///
        /// - Throws: ``DownloadError/invalidHeaderField(_:)`` for a field that cannot be sent as it is.
        func request() throws(DownloadError) -> (lines: [String], userAgent: String?) {
            try validate()
            var lines: [String] = []
            for (name, value) in sortedFields {
                let trimmed = value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
                // libcurl takes "Name:" with nothing after it as "do not send Name", and "Name;" as an empty field.
                lines.append(trimmed.isEmpty ? "\(name);" : "\(name): \(String(trimmed))")
            }
            return (lines, httpUserAgent)
        }

        /// Whether `name` is a field name: one or more of RFC 9110's token characters.
        private static func isToken(_ name: String) -> Bool {
            !name.isEmpty && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                default:
                    "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
        }

        /// Whether `value` can be sent as a field's value: no line break, no NUL or other control but tab.
        private static func isFieldValue(_ value: String) -> Bool {
            value.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
        }
    }
}

/// An ``AssetResourceLoader`` in ``AudioAsset/Options``: the same loader, whatever its delegate, is equal.
struct LoaderReference: Sendable, Equatable {
    let loader: AssetResourceLoader

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.loader === rhs.loader }
}
