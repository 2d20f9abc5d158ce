@testable import AudioIO
import Testing

/// A voice whose decoder falls behind (a busy machine) on the render thread itself: one started at a device time drops
/// what it missed and stays on its schedule, as players started together must; one started at once plays on late.
@Suite struct MixerTimekeepingTests {
    /// Two channels, each frame's samples its number: what sounded tells which frame it was.
    private static func frames(_ range: Range<Int>) -> [Float] { range.flatMap { [Float($0), Float($0)] } }

    /// Renders a period of 64 frames after the decoder delivered the first 32 of it, then one after it delivered the
    /// rest; returns the second period's frame numbers.
    private func secondPeriod(keepsTime: Bool) -> (heard: [Float], starved: Int) {
        let mixer = Mixer(channelCount: 2, maximumFrames: 64, starvationWait: 0)
        let voice = Voice(channelCount: 2, capacityFrames: 1024, startingAt: 0)
        voice.keepsTime.store(keepsTime, ordering: .relaxed)
        voice.startFrame.store(keepsTime ? 0 : Voice.immediately, ordering: .relaxed)
        #expect(mixer.add(voice))
        let output = UnsafeMutableBufferPointer<Float>.allocate(capacity: 128)
        defer { output.deallocate() }
        let marker = PlaybackMarker(frames: 256, fileTime: 0, secondsPerFrame: 1.0 / 48000, item: 0, isEnd: false)
        #expect(voice.markers.push(marker))
        Self.frames(0..<32).withUnsafeBufferPointer { #expect(voice.audio.write($0) == 64) }
        mixer.render(into: output, frames: 64, firstFrame: 0)
        #expect(Array(output[0..<64]) == Self.frames(0..<32), "what was there sounded")
        Self.frames(32..<256).withUnsafeBufferPointer { #expect(voice.audio.write($0) == 448) }
        mixer.render(into: output, frames: 64, firstFrame: 64)
        return (Array(output.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)), voice.starvedPeriods.load(ordering: .relaxed))
    }

    @Test func aVoiceStartedAtADeviceTimeDropsWhatItsDecoderDeliveredLate() {
        let (heard, starved) = secondPeriod(keepsTime: true)
        #expect(heard == (64..<128).map(Float.init), "device frame 64 sounds frame 64, as it would have on time")
        #expect(starved == 1)
    }

    @Test func aVoiceStartedAtOncePlaysOnFromWhereItRanDry() {
        let (heard, starved) = secondPeriod(keepsTime: false)
        #expect(heard == (32..<96).map(Float.init), "nothing dropped: it is late, whole")
        #expect(starved == 1)
    }
}
