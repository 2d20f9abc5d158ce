import Foundation
import TestSupport
import Testing

/// How hard the torture suites push: lightly in `make test`, for minutes in `make torture`
/// (`VOICEMEMO_TORTURE=1`). The same cases run either way; only their counts and lengths grow.
enum Torture {
    static let isLong = ProcessInfo.processInfo.environment["VOICEMEMO_TORTURE"] == "1"

    /// `quick` in `make test`, `long` in `make torture`.
    static func scale<T>(quick: T, long: T) -> T { isLong ? long : quick }
}

/// The ways a file is damaged: what a bad disk, a cut download or a hostile sender does to it.
enum Mutation: CaseIterable {
    /// A few bits flipped anywhere.
    case flipBits
    /// A run of bytes overwritten with values that break parsers: 0, 0xFF, 0x7F, 0x80.
    case boundaryBytes
    /// A 32-bit field overwritten with 0, 1, 0x7FFFFFFF, 0xFFFFFFFF or a random value, in the header.
    case headerField
    /// Cut short at a random length.
    case truncate
    /// A piece of the file repeated in place, as a bad copy does.
    case duplicateSpan
    /// Random bytes appended.
    case appendGarbage

    /// `bytes` damaged this way, chosen by `random`.
    func apply(to bytes: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        guard !bytes.isEmpty else { return bytes }
        switch self {
        case .flipBits:
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            }
        case .boundaryBytes:
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let value = [0x00, 0xFF, 0x7F, 0x80].randomElement(using: &random)!
            for index in start..<min(bytes.count, start + Int.random(in: 1...16, using: &random)) { bytes[index] = UInt8(value) }
        case .headerField:
            let offset = Int.random(in: 0..<min(bytes.count, 256), using: &random) & ~3
            let value = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32.random(in: 0...UInt32.max, using: &random)]
                .randomElement(using: &random)!
            for byte in 0..<4 where offset + byte < bytes.count { bytes[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        case .truncate:
            bytes.removeLast(Int.random(in: 1...bytes.count, using: &random))
        case .duplicateSpan:
            let start = Int.random(in: 0..<bytes.count, using: &random)
            let end = min(bytes.count, start + Int.random(in: 1...4096, using: &random))
            bytes.insert(contentsOf: bytes[start..<end], at: Int.random(in: 0...bytes.count, using: &random))
        case .appendGarbage:
            bytes += (0..<Int.random(in: 1...4096, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        return bytes
    }
}

/// The damage is real and replayable, and `make test` runs the quick scale.
@Suite(.tags(.torture)) struct TortureRigTests {
    @Test func everyMutationChangesTheBytesTheSameWayForTheSameSeed() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for mutation in Mutation.allCases {
            var first = SeededGenerator(seed: 1), again = SeededGenerator(seed: 1)
            let damaged = mutation.apply(to: bytes, using: &first)
            #expect(damaged != bytes, "\(mutation)")
            #expect(mutation.apply(to: bytes, using: &again) == damaged, "\(mutation)")
        }
        var random = SeededGenerator(seed: 2)
        #expect(Mutation.truncate.apply(to: bytes, using: &random).count < bytes.count)
        #expect(Torture.scale(quick: 1, long: 2) == (Torture.isLong ? 2 : 1))
    }
}
