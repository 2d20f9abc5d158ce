import Dispatch
import FoundationEssentials
import SystemPackage

/// A key the interactive commands react to.
enum Key: Equatable, Sendable {
    case space, left, right, plus, minus, quit, enter
    /// Shift+← and shift+→, or `,` and `.` (`<` and `>`) where a terminal sends no shifted arrows.
    case shiftLeft, shiftRight
    /// `n` and `p`.
    case next, previous
    /// `s`.
    case sleep
    /// `k`: skip silence, or not.
    case skipSilence
    /// `m`: a marker, while recording.
    case mark
    /// `[` and `]`: to the marker before, or after, while playing.
    case previousMarker, nextMarker
    /// `9` and `0` (`/` and `*`), as mpv's: the volume down or up.
    case volumeDown, volumeUp

    /// The keys in `bytes` as a terminal in raw mode sends them (arrows are `ESC [ C` / `ESC [ D`, with shift
    /// `ESC [ 1 ; 2 C` / `ESC [ 1 ; 2 D`; Enter is `\n`, or `\r` where the terminal does not translate it).
    static func parse(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") {
                // A control sequence: parameters (digits and `;`), then its final byte.
                var end = index + 2
                while end < bytes.count - 1, bytes[end] == UInt8(ascii: ";") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end]) {
                    end += 1
                }
                let isShifted = bytes[(index + 2)..<end].split(separator: UInt8(ascii: ";")).last == [UInt8(ascii: "2")]
                switch bytes[end] {
                case UInt8(ascii: "C"): keys.append(isShifted ? .shiftRight : .right)
                case UInt8(ascii: "D"): keys.append(isShifted ? .shiftLeft : .left)
                default: break
                }
                index = end + 1
                continue
            }
            switch bytes[index] {
            case UInt8(ascii: " "): keys.append(.space)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.plus)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): keys.append(.minus)
            case UInt8(ascii: ","), UInt8(ascii: "<"): keys.append(.shiftLeft)
            case UInt8(ascii: "."), UInt8(ascii: ">"): keys.append(.shiftRight)
            case UInt8(ascii: "n"), UInt8(ascii: "N"): keys.append(.next)
            case UInt8(ascii: "p"), UInt8(ascii: "P"): keys.append(.previous)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): keys.append(.sleep)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"): keys.append(.quit)
            case UInt8(ascii: "k"), UInt8(ascii: "K"): keys.append(.skipSilence)
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): keys.append(.enter)
            case UInt8(ascii: "m"), UInt8(ascii: "M"): keys.append(.mark)
            case UInt8(ascii: "["): keys.append(.previousMarker)
            case UInt8(ascii: "]"): keys.append(.nextMarker)
            case UInt8(ascii: "9"), UInt8(ascii: "/"): keys.append(.volumeDown)
            case UInt8(ascii: "0"), UInt8(ascii: "*"): keys.append(.volumeUp)
            default: break
            }
            index += 1
        }
        return keys
    }

    /// Keys typed on standard input, as they come, until the stream is dropped.
    static func typed() -> AsyncStream<Key> {
        AsyncStream { continuation in
            let source = DispatchSource.makeReadSource(fileDescriptor: FileDescriptor.standardInput.rawValue)
            let handle = SourceHandle(source)
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = (try? buffer.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0) }) ?? 0
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
