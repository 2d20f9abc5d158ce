import Foundation

/// The accepting side of the rig's small servers: a listening socket whose every connection is served on a thread of
/// its own, until ``stop()`` shuts the socket and every connection (each thread then closes its own socket).
final class ConnectionLoop: @unchecked Sendable {
    private let listener: Int32
    private let serve: @Sendable (Int32) -> Void
    private let lock = NSLock()
    private var connections: Set<Int32> = []

    /// Starts accepting on `listener`, calling `serve` with each connection on a new thread.
    init(listener: Int32, serve: @escaping @Sendable (Int32) -> Void) {
        self.listener = listener
        self.serve = serve
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Wakes the accept and every read with an error.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        lock.withLock { connections.forEach { shutdown($0, Int32(SHUT_RDWR)) } }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            lock.withLock { _ = connections.insert(connection) }
            Thread.detachNewThread { [self] in
                serve(connection)
                lock.withLock { _ = connections.remove(connection) }
                close(connection)
            }
        }
    }
}

#if canImport(Testing)
import Testing

/// Each connection is served on its own, and none after the loop stops.
@Suite(.timeLimit(.minutes(1))) struct ConnectionLoopTests {
    @Test func eachConnectionIsServedUntilTheLoopStops() throws {
        let (listener, port) = try FaultyHTTPServer.listen(backlog: 16)
        let loop = ConnectionLoop(listener: listener) { connection in
            var pending = Data()
            guard FaultyHTTPServer.readHead(connection, pending: &pending) != nil else { return }
            _ = Data("HTTP/1.0 200 OK\r\n\r\nserved".utf8).withUnsafeBytes { FaultyHTTPServer.sendAll(connection, $0) }
        }
        let url = "http://127.0.0.1:\(port)/"
        for _ in 0..<3 {
            let result = try Tool.run("curl", ["-s", "--max-time", "5", url])
            #expect(result.status == 0 && result.standardOutput == "served")
        }
        loop.stop()
        #expect(try Tool.run("curl", ["-s", "--max-time", "5", url]).status == 7, "refused once stopped")
    }
}
#endif
