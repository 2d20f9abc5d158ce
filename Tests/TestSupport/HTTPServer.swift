import Foundation

/// A private nginx (Debian's nginx-light) serving a directory on 127.0.0.1 (DESIGN §7): byte ranges, `ETag` and
/// `Last-Modified` as any static file server sends them, a rate limit per connection (`limit_rate`), and an access log
/// that counts the body bytes of every response (`$body_bytes_sent`) and keeps the request's `Range`,
/// `Authorization`, `Cookie` and `User-Agent`.
///
/// It runs as one process (`master_process off`) on a free port, in a fresh directory of its own, and is stopped by its
/// pid: ``kill()`` ends it as a crash would (connections dropped mid-body), ``start()`` brings it back on the same
/// port. What it serves:
/// - `/NAME`: the file `NAME` put with ``put(_:as:)``;
/// - `/norange/NAME`: the same, without range support (`max_ranges 0`: a 200 with the whole file, whatever is asked);
/// - `/private/NAME`: 403 Forbidden;
/// - `/auth/NAME`: the file, to a request whose `Authorization` is ``authorization``, else 401 Unauthorized;
/// - `/moved/NAME`: a permanent redirect (301) to `/NAME` (`/moved/auth/NAME` to `/auth/NAME`), on the same origin;
/// - `/away/NAME`: a redirect (302) to `/NAME` on ``otherPort``, another origin (`/away/auth/NAME` to `/auth/NAME`);
/// - with `tls`, the same on an `https` port whose certificate a certificate authority made here signed: no system
///   trusts it, a client given ``certificateAuthority`` does.
///
/// ```swift
/// let server = try HTTPServer(rate: "64k")
/// try server.put(tone, as: "tone.wav")
/// let player = try AudioPlayer(contentsOf: server.url("tone.wav"))
/// #expect(server.bodyBytes() == ...)
/// ```
public final class HTTPServer: @unchecked Sendable {
    /// The port of the `http` server.
    public let port: Int
    /// A second `http` port of the same server: another origin, serving the same.
    public let otherPort: Int
    /// The `Authorization` field `/auth/` asks for: `Bearer` and a token made for this server.
    public let authorization = "Bearer voicememo-\(UUID().uuidString)"
    /// The port of the `https` server, when made with `tls`.
    public let securePort: Int?
    /// The PEM certificate of the CA that signed the `https` server's certificate, when made with `tls`.
    public let certificateAuthority: URL?
    /// Where the served files are.
    public let root: URL
    private let directory: URL
    private let lock = NSLock()
    private var pid: Int32?
    /// The `https` server's lines of the configuration, when there is one.
    private var secure = ""

    /// Writes the configuration and starts the server (waiting until it answers, at most 10 s).
    ///
    /// - Parameters:
    ///   - rate: nginx's `limit_rate` (bytes per second per connection, e.g. "64k"), or nil for no limit.
    ///   - rateAfter: nginx's `limit_rate_after`: the bytes of each response sent at full speed before `rate` applies
    ///     (e.g. "300k" with a rate of "1k": a download that stops mid-way, whenever a test looks).
    ///   - tls: Whether to serve `https` too, on a certificate made here with openssl.
    public init(rate: String? = nil, rateAfter: String? = nil, tls: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-nginx-\(UUID().uuidString.prefix(8))")
        root = directory.appendingPathComponent("www")
        for folder in [root, directory.appendingPathComponent("tmp")] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let ports = try Loopback.freePorts(3)
        port = ports[0]
        otherPort = ports[1]
        securePort = tls ? ports[2] : nil
        certificateAuthority = tls ? directory.appendingPathComponent("ca.pem") : nil
        if let securePort, let certificateAuthority {
            let folder = directory
            let file = { (name: String) in folder.appendingPathComponent(name).path }
            let (key, certificate) = (file("key.pem"), file("certificate.pem"))
            // A CA, then the server's certificate signed by it for the address 127.0.0.1 (a subject alternative name:
            // TLS clients no longer read the host from the common name).
            let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try Tool.output("openssl", ["req", "-x509"] + curve + [
                "-subj", "/CN=voicememo test CA", "-days", "2", "-keyout", file("ca-key.pem"), "-out", certificateAuthority.path,
            ])
            try Tool.output("openssl", ["req"] + curve + ["-subj", "/CN=127.0.0.1", "-keyout", key, "-out", file("request.pem")])
            try "subjectAltName = IP:127.0.0.1\n".write(toFile: file("extensions.cnf"), atomically: true, encoding: .utf8)
            try Tool.output("openssl", [
                "x509", "-req", "-in", file("request.pem"), "-CA", certificateAuthority.path, "-CAkey", file("ca-key.pem"),
                "-CAcreateserial", "-days", "2", "-extfile", file("extensions.cnf"), "-out", certificate,
            ])
            secure = """
                listen 127.0.0.1:\(securePort) ssl;
                        ssl_certificate \(certificate);
                        ssl_certificate_key \(key);
                """
        }
        try limit(rate: rate, after: rateAfter)
        try start()
    }

    /// Writes the configuration with `rate` and `after` (see ``init(rate:rateAfter:tls:)``), for the next ``start()``.
    public func limit(rate: String?, after: String? = nil) throws {
        let temporary = directory.appendingPathComponent("tmp").path
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log warn;
            events { worker_connections 64; }
            http {
                log_format counted '$request_uri $status $body_bytes_sent $server_port "$http_range" "$http_authorization" "$http_cookie" "$http_user_agent"';
                access_log \(directory.path)/access.log counted;
                client_body_temp_path \(temporary)/body;
                proxy_temp_path \(temporary)/proxy;
                fastcgi_temp_path \(temporary)/fastcgi;
                uwsgi_temp_path \(temporary)/uwsgi;
                scgi_temp_path \(temporary)/scgi;
                default_type application/octet-stream;
                types { text/html html; }
                sendfile off;
                server {
                    listen 127.0.0.1:\(port);
                    listen 127.0.0.1:\(otherPort);
                    \(secure)
                    root \(root.path);
                    \(rate.map { "limit_rate \($0);" } ?? "")
                    \(after.map { "limit_rate_after \($0);" } ?? "")
                    location /private/ { return 403; }
                    location /moved/ { rewrite ^/moved/(.*)$ /$1 permanent; }
                    location /away/ { rewrite ^/away/(.*)$ http://127.0.0.1:\(otherPort)/$1 redirect; }
                    location /auth/ {
                        if ($http_authorization != "\(authorization)") { return 401; }
                        alias \(root.path)/;
                    }
                    location /norange/ { max_ranges 0; alias \(root.path)/; }
                }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `http` address of `name`, e.g. `url("tone.wav")`, `url("norange/tone.wav")`.
    public func url(_ name: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(name)")!
    }

    /// The address of `name` on ``otherPort``, another origin.
    public func otherOriginURL(_ name: String) -> URL {
        URL(string: "http://127.0.0.1:\(otherPort)/\(name)")!
    }

    /// The `https` address of `name`, on the certificate ``certificateAuthority`` signed.
    public func secureURL(_ name: String) -> URL {
        URL(string: "https://127.0.0.1:\(securePort ?? 0)/\(name)")!
    }

    /// Copies `file` into the served directory as `name`.
    public func put(_ file: URL, as name: String) throws {
        let target = root.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: file, to: target)
    }

    /// Starts the server (after ``kill()``, on the same port) and waits until it accepts connections.
    public func start() throws {
        try lock.withLock {
            guard pid == nil else { return }
            pid = try spawnServer(
                ["nginx", "-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path, "-e", directory.appendingPathComponent("error.log").path],
                environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], log: directory.appendingPathComponent("stderr.log"))
        }
        let deadline = Date().addingTimeInterval(10)
        while !Loopback.accepts(port: port) {
            guard Date() < deadline, isRunning else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                kill()
                throw SpawnFailure(description: "nginx did not start: \(log)")
            }
            usleep(10_000)
        }
    }

    /// Kills the server with SIGKILL, as a crash would: transfers under way end mid-body. Waits until it is gone.
    public func kill() {
        guard let pid = lock.withLock({ self.pid.take() }) else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }

    /// Whether the server process runs.
    public var isRunning: Bool {
        lock.withLock {
            guard let pid else { return false }
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == 0
        }
    }

    /// One line of the access log: a request, the response and the body bytes it sent.
    public struct Request: Sendable {
        public let path: String
        public let status: Int
        public let bodyBytes: Int64
        /// The port asked: ``port`` or ``otherPort``.
        public let port: Int
        /// The `Range` header asked for, or "-".
        public let range: String
        /// The `Authorization` header, if the request had one.
        public let authorization: String?
        /// The `Cookie` header, if the request had one.
        public let cookie: String?
        /// The `User-Agent` header, or "-".
        public let userAgent: String
    }

    /// The responses logged so far (a response is logged when it ends).
    public func requests() -> [Request] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 4)
            // The quoted fields: nginx writes a `"` in a value as \x22, so quotes only delimit.
            let quoted = fields.count == 5 ? fields[4].split(separator: "\"", omittingEmptySubsequences: false) : []
            guard fields.count == 5, quoted.count == 9, let status = Int(fields[1]), let bytes = Int64(fields[2]), let port = Int(fields[3])
            else { return nil }
            let (range, authorization, cookie, userAgent) = (String(quoted[1]), String(quoted[3]), String(quoted[5]), String(quoted[7]))
            return Request(
                path: String(fields[0]), status: status, bodyBytes: bytes, port: port, range: range,
                authorization: authorization == "-" ? nil : authorization, cookie: cookie == "-" ? nil : cookie, userAgent: userAgent)
        }
    }

    /// Body bytes sent so far, over every logged response, or over those of `path` (e.g. "/tone.wav").
    public func bodyBytes(of path: String? = nil) -> Int64 {
        requests().filter { path == nil || $0.path == path }.reduce(0) { $0 + $1.bodyBytes }
    }
}
