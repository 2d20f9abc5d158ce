import Dispatch
import FoundationEssentials
import Glibc

/// A key the interactive commands react to.
enum Key: Equatable, Sendable {
    case space, left, right, plus, minus, quit, enter, skipSilence

    /// The keys in `bytes` as a terminal in raw mode sends them (arrows are `ESC [ C` / `ESC [ D`; Enter is
    /// `\n`, or `\r` where the terminal does not translate it).
    static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") {
                switch bytes[index + 2] {
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                index += 3
                continue
            }
            switch bytes[index] {
            case UInt8(ascii: " "): keys.append(.space)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.plus)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): keys.append(.minus)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): keys.append(.skipSilence)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): keys.append(.enter)
            default: break
            }
            index += 1
        }
        return keys
    }

    /// Keys typed on standard input, as they come, until the stream is dropped.
    static func typed() -> AsyncStream<Key> {
        AsyncStream { continuation in
            let source = DispatchSource.makeReadSource(fileDescriptor: STDIN_FILENO)
            let handle = SourceHandle(source)
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                guard count > 0 else { return handle.source.cancel() }
                for key in parse(Array(buffer.prefix(count))) { continuation.yield(key) }
            }
            source.setCancelHandler { continuation.finish() }
            continuation.onTermination = { _ in handle.source.cancel() }
            source.resume()
        }
    }
}

/// A dispatch source shared with its own handlers; Dispatch serialises their calls.
private final class SourceHandle: @unchecked Sendable {
    let source: any DispatchSourceRead
    init(_ source: any DispatchSourceRead) { self.source = source }
}
