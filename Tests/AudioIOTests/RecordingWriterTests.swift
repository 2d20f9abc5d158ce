@testable import AudioIO
import Atomics
import Foundation
import TestSupport
import Testing

/// The writer thread fed by hand through a capture cycle, with no device.
@Suite struct RecordingWriterTests {
    @Test func inputLostForWantOfRoomIsSilenceOfItsLengthInTheFile() throws {
        let scratch = try ScratchDirectory()
        let cycle = CaptureCycle(format: .int16, channelCount: 1, maximumFrames: 480, overflowWait: 0)
        let tap = CaptureTap(channelCount: 1, channelMap: .identity, periodFrames: 480, capacityFrames: 1024)
        tap.startFrame.store(CaptureTap.immediately, ordering: .relaxed)
        #expect(cycle.add(tap))
        // Four periods with no writer draining: 1024 frames kept, 896 lost.
        for period in 0..<4 {
            let samples = (0..<480).map { Int16(period * 480 + $0) }
            samples.withUnsafeBytes { cycle.process($0.baseAddress!, frames: 480, firstFrame: Int64(period * 480)) }
        }
        let file = try AudioFileWriter(url: scratch.file("gap.wav"), settings: AudioSettings(format: .wav))
        let writer = try RecordingWriter(tap: tap, file: file, deviceRate: 48000) { true }
        writer.start(pacedByDevice: false)
        let outcome = writer.waitUntilFinished()
        #expect(outcome.error == nil && outcome.summary.frameCount == 1920)
        let written = try Sox.samples(of: scratch.path("gap.wav")).map { $0 >> 16 }
        #expect(written == (0..<1024).map(Int32.init) + Array(repeating: 0, count: 896))
    }
}
