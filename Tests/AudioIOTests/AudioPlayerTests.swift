import AudioIO
import Foundation
import TestSupport
import Testing

@Suite struct AudioPlayerTests {
    @Test(arguments: ["wav", "caf"])
    func loopsLandOnTheDeviceSampleForSampleWithoutGaps(format: String) async throws {
        let rig = try PlaybackRig()
        let file = rig.scratch.file("noise.\(format)")
        try Sox.synth(to: file.path, rate: 48000, channels: 2, seconds: 0.5, "whitenoise whitenoise")
        let reference = try Sox.samples(of: file.path)
        let player = try rig.player(file)
        player.numberOfLoops = 2
        #expect(try await rig.playToEnd([player]) == [true])
        let device = try await rig.deviceSamples(atLeast: 3 * 24000)
        let left = stride(from: 0, to: reference.count, by: 2).map { reference[$0] }
        let right = stride(from: 1, to: reference.count, by: 2).map { reference[$0] }
        #expect(firstDifference(device[0], left + left + left) == nil)
        #expect(firstDifference(device[1], right + right + right) == nil)
        #expect(device[0].dropFirst(72000).allSatisfy { $0 == 0 }, "nothing after the last loop")
    }
}

/// Where `actual` first departs from `expected` (over `expected`'s length), described; nil when it does not.
func firstDifference(_ actual: [Int32], _ expected: [Int32]) -> String? {
    guard actual.count >= expected.count else { return "only \(actual.count) of \(expected.count) samples" }
    guard let index = expected.indices.first(where: { actual[$0] != expected[$0] }) else { return nil }
    return "sample \(index): \(actual[index]) instead of \(expected[index])"
}
