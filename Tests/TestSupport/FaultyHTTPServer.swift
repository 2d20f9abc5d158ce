import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 that serves one body at every path, with byte ranges, and breaks the protocol
/// as told: what nginx will not do (a wrong `Content-Length`, a connection closed mid-body, silence, a 200 to a range
/// request after a 206, a head full of escape sequences). The fault can be changed while it runs, so a test can let
/// the network recover.
///
/// One thread accepts, one thread serves each connection (kept open between requests, as a server does).
///
/// ```swift
/// let server = try FaultyHTTPServer(body: Data(contentsOf: talk), fault: .closeAfter(bytes: 100_000, responses: 2))
/// let file = try AudioFile(forReading: server.url("talk.wav"))
/// ```
public final class FaultyHTTPServer: @unchecked Sendable {
    /// How the server misbehaves.
    public enum Fault: Sendable, Equatable {
        /// None: a 206 to a range request, a 200 otherwise.
        case none
        /// The first `responses` responses end after `bytes` bytes of their body: the connection is closed mid-body.
        case closeAfter(bytes: Int, responses: Int)
        /// Every response's body stops at this offset of the file, and the connection is closed: a range from there on
        /// gets its head and nothing more. With `ignoringRanges`, every response is a 200 with the body from its start.
        case closeAt(offset: Int, ignoringRanges: Bool)
        /// `Content-Length` is off by `bytes` (`Content-Range`, if any, is right); the body is the bytes asked for, then
        /// the connection is closed. With `wholeFileAs200`, a range from the first byte to the end is answered as the
        /// whole file, a 200 without `Content-Range` (as RFC 9110 allows).
        case contentLengthOffBy(bytes: Int, wholeFileAs200: Bool)
        /// 416 (Range Not Satisfiable) to every request.
        case rangeNotSatisfiable
        /// A 206 to the first request, cut after 4096 bytes (the connection closed), then a 200 with the whole body
        /// whatever is asked: a server that ignores `Range` on the request that resumes.
        case ignoresRangesAfterFirst
        /// The first `responses` responses stop after `bytes` bytes of their body, and the connection stays open and
        /// silent: a stalled transfer.
        case stallAfter(bytes: Int, responses: Int)
        /// A redirect (302) from every path to the path with `x` added: a loop that never ends.
        case redirectLoop
        /// Accepts the connection, reads the request, and sends nothing.
        case silent
        /// A 500 whose reason phrase, `Content-Type` and another field hold escape sequences (a hostile server).
        case hostileHead
    }

    /// The port it listens on.
    public let port: Int
    private let state: State
    private let loop: ConnectionLoop

    /// Starts serving `body` with `fault`.
    public init(body: Data, fault: Fault) throws {
        let (listener, port) = try Self.listen(backlog: 16)
        self.port = port
        state = State(body: body, fault: fault)
        // The threads hold the state, not the server: the server's end stops them.
        loop = ConnectionLoop(listener: listener) { [state] in state.serve($0) }
    }

    deinit { loop.stop() }

    /// The fault of the requests to come; a connection silent already stays so.
    public var fault: Fault {
        get { state.lock.withLock { state.currentFault } }
        set { state.lock.withLock { state.currentFault = newValue } }
    }

    /// The `Range` field of each request so far ("-" for none), in order.
    public var requestedRanges: [String] { state.lock.withLock { state.ranges } }

    /// The address of `path` (e.g. "talk.wav") on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(path)")!
    }
}

/// What the server's threads share, under `lock`.
private final class State: @unchecked Sendable {
    let body: Data
    let lock = NSLock()
    var currentFault: FaultyHTTPServer.Fault
    var responses = 0
    var ranges: [String] = []

    init(body: Data, fault: FaultyHTTPServer.Fault) {
        self.body = body
        currentFault = fault
    }

    func serve(_ connection: Int32) {
        var pending = Data()
        while true {
            guard let head = FaultyHTTPServer.readHead(connection, pending: &pending) else { return }
            let lines = head.split(separator: "\r\n")
            let path = lines.first.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "/" } ?? "/"
            let range = lines.first { $0.lowercased().hasPrefix("range:") }.map { String($0.dropFirst(6)).trimmingCharacters(in: .whitespaces) }
            let (fault, number) = lock.withLock { () -> (FaultyHTTPServer.Fault, Int) in
                ranges.append(range ?? "-")
                responses += 1
                return (currentFault, responses)
            }
            guard respond(connection, path: path, range: range, fault: fault, number: number) else { return }
        }
    }

    /// Writes one response; false when the connection is to be closed.
    private func respond(_ connection: Int32, path: String, range: String?, fault: FaultyHTTPServer.Fault, number: Int) -> Bool {
        let total = body.count
        var first = 0
        var last = total - 1
        var partial = false
        let ignoresRanges = fault == .ignoresRangesAfterFirst && number > 1 || {
            if case .closeAt(_, true) = fault { true } else { false }
        }()
        if let range, range.hasPrefix("bytes="), !ignoresRanges {
            let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            first = Int(bounds[0]) ?? 0
            if bounds.count > 1, let end = Int(bounds[1]) { last = min(end, total - 1) }
            partial = true
            if case .contentLengthOffBy(_, true) = fault, first == 0, last == total - 1 { partial = false }
        }
        switch fault {
        case .silent:
            return holdSilent(connection)
        case .redirectLoop:
            return send(connection, "HTTP/1.1 302 Found\r\nLocation: \(path)x\r\nContent-Length: 0\r\n\r\n")
        case .rangeNotSatisfiable:
            return send(connection, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(total)\r\nContent-Length: 0\r\n\r\n")
        case .hostileHead:
            let escape = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{1B}[31m"
            let page = "<html>\(escape)</html>"
            return send(connection, "HTTP/1.1 500 \(escape)Broken\r\nContent-Type: text/html\(escape)\r\nX-Note: \(escape)\r\n"
                + "Content-Length: \(page.utf8.count)\r\n\r\n\(page)")
        default:
            break
        }
        if partial, first >= total {
            return send(connection, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */\(total)\r\nContent-Length: 0\r\n\r\n")
        }
        var length = last - first + 1
        var sent = length
        var keepOpen = true
        switch fault {
        case .closeAfter(let bytes, let count) where number <= count:
            sent = min(bytes, length)
            keepOpen = false
        case .ignoresRangesAfterFirst where number == 1:
            sent = min(4096, length)
            keepOpen = false
        case .stallAfter(let bytes, let count) where number <= count:
            sent = min(bytes, length)
        case .closeAt(let offset, _):
            sent = max(0, min(offset - first, length))
            keepOpen = sent == length
        case .contentLengthOffBy(let delta, _):
            length += delta
            keepOpen = false
        default:
            break
        }
        var head = partial ? "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(first)-\(last)/\(total)\r\n" : "HTTP/1.1 200 OK\r\n"
        head += "Content-Type: audio/wav\r\nAccept-Ranges: bytes\r\nETag: \"faulty\"\r\nContent-Length: \(length)\r\n\r\n"
        guard send(connection, head) else { return false }
        let wrote = body.withUnsafeBytes { bytes in
            FaultyHTTPServer.sendAll(connection, UnsafeRawBufferPointer(rebasing: bytes[first..<(first + sent)]))
        }
        if case .stallAfter(_, let count) = fault, number <= count { return holdSilent(connection) }
        return wrote && keepOpen
    }

    /// Holds the connection open, sending nothing, until the client gives up (or the server goes); false.
    private func holdSilent(_ connection: Int32) -> Bool {
        var byte: UInt8 = 0
        while recv(connection, &byte, 1, 0) > 0 {}
        return false
    }

    private func send(_ connection: Int32, _ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { FaultyHTTPServer.sendAll(connection, $0) }
    }
}

extension FaultyHTTPServer {
    /// Sends all of `bytes` on `connection`; false when the client is gone.
    static func sendAll(_ connection: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = Glibc.send(connection, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// The next request's head (up to the blank line), or nil when the client closed; a body is not expected.
    static func readHead(_ connection: Int32, pending: inout Data) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = pending.firstRange(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending = Data(pending[end.upperBound...])
                return head
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.append(contentsOf: buffer[..<count])
        }
    }

    /// A socket listening on a port of 127.0.0.1 the kernel chose.
    static func listen(backlog: Int32) throws -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound, Glibc.listen(socket, backlog) == 0 else {
            close(socket)
            throw SpawnFailure(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// A port of 127.0.0.1 that never completes a connection: its socket listens with a backlog of none, never accepts,
/// and two connections fill its queue, so the kernel drops every SYN after them and a client waits until its own
/// connect timeout. Local and deterministic, unlike an address that does not route.
public final class UnansweredPort: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private var fillers: [Int32] = []

    public init() throws {
        (listener, port) = try FaultyHTTPServer.listen(backlog: 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        for _ in 0..<2 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(socket)
        }
        // The kernel completes the fillers' handshakes at once, on loopback; after them the queue is full.
        usleep(50_000)
    }

    deinit {
        fillers.forEach { close($0) }
        close(listener)
    }

    /// An address on this port.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)/\(path)")!
    }
}

#if canImport(Testing)
import Testing

/// The rig's faults, as curl meets them: the server breaks HTTP as each fault says, and the port never answers.
@Suite(.timeLimit(.minutes(1))) struct FaultyHTTPServerTests {
    /// 100,000 bytes of a counting pattern.
    let body = Data((0..<100_000).map { UInt8($0 % 251) })

    /// curl's exit status and the bytes it wrote of `url`, with `arguments` before it.
    func curl(_ url: URL, _ arguments: [String] = []) throws -> (status: Int32, bytes: Data) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("faulty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try Tool.run("curl", ["-s", "--max-time", "10", "-o", output.path] + arguments + [url.absoluteString])
        return (result.status, (try? Data(contentsOf: output)) ?? Data())
    }

    @Test func withoutAFaultItServesTheBodyAndItsRanges() throws {
        let server = try FaultyHTTPServer(body: body, fault: .none)
        #expect(try curl(server.url("a")) == (0, body))
        #expect(try curl(server.url("a"), ["-r", "1000-1999"]) == (0, body[1000..<2000]))
        #expect(server.requestedRanges == ["-", "bytes=1000-1999"])
    }

    @Test func eachFaultBreaksTheTransferAsItSays() throws {
        let server = try FaultyHTTPServer(body: body, fault: .closeAfter(bytes: 30_000, responses: 1))
        // Closed mid-body: curl's 18, "transfer closed with outstanding read data"; then whole again.
        let cut = try curl(server.url("a"))
        #expect(cut.status == 18 && cut.bytes == body[..<30_000])
        #expect(try curl(server.url("a")) == (0, body))

        server.fault = .rangeNotSatisfiable
        #expect(try curl(server.url("a"), ["-f"]).status == 22, "a 416 is an HTTP error")
        server.fault = .redirectLoop
        #expect(try curl(server.url("a"), ["-L", "--max-redirs", "3"]).status == 47, "too many redirects")
        server.fault = .contentLengthOffBy(bytes: 10, wholeFileAs200: false)
        #expect(try curl(server.url("a"), ["-r", "0-999"]).status == 18, "the length says 10 bytes more than come")
        server.fault = .hostileHead
        let hostile = try Tool.run("curl", ["-s", "-i", "--max-time", "10", server.url("a").absoluteString])
        #expect(hostile.standardOutput.hasPrefix("HTTP/1.1 500") && hostile.standardOutput.contains("\u{1B}["))
        server.fault = .silent
        #expect(try curl(server.url("a"), ["--max-time", "1"]).status == 28, "nothing comes: curl times out")
    }

    @Test func anUnansweredPortNeverCompletesAConnection() throws {
        let port = try UnansweredPort()
        let started = ContinuousClock.now
        #expect(try curl(port.url("a"), ["--connect-timeout", "1"]).status == 28)
        #expect(ContinuousClock.now - started >= .milliseconds(900), "curl waited out its connect timeout")
    }
}
#endif
