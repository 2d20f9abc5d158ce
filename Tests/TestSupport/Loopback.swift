import Foundation

/// Ports of 127.0.0.1 for the servers the tests start: one free now, and whether one accepts connections yet.
enum Loopback {
    /// `count` ports no one listens on now, all different: each is held until all are found, since the kernel may hand
    /// a port just let go out again.
    static func freePorts(_ count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        return try (0..<count).map { _ in
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            sockets.append(socket)
            return try port(boundBy: socket)
        }
    }

    /// Binds `socket` to a port the kernel chooses, and returns it.
    private static func port(boundBy socket: Int32) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw SpawnFailure(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on `port` of 127.0.0.1.
    static func accepts(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

#if canImport(Testing)
import Testing

/// Free ports are free and different; a port accepts once something listens on it.
@Suite struct LoopbackTests {
    @Test func freePortsAreDifferentAndAcceptOnlyOnceListenedOn() throws {
        let ports = try Loopback.freePorts(3)
        #expect(Set(ports).count == 3 && ports.allSatisfy { (1...65535).contains($0) })
        #expect(ports.allSatisfy { !Loopback.accepts(port: $0) })
        let (listener, port) = try FaultyHTTPServer.listen(backlog: 1)
        defer { close(listener) }
        #expect(Loopback.accepts(port: port))
    }
}
#endif
