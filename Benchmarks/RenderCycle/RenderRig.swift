import Atomics
import AudioIO
import Glibc

/// The render thread's work for one device period, on a real ``Mixer`` whose voices are fed the way the
/// decoder thread feeds them: what `StreamEngine.renderPeriod` does each period, short of the device write.
///
/// Stereo, 48 kHz, 480-frame periods: the engine's preferred device settings. Every voice has its own pan,
/// metering on and a fade always under way (one second each, one after the other), so every branch that
/// steady playback takes in the mix is taken here. ``refill()`` is the decoder's and the meter reader's
/// share of the work and belongs outside the measured region; ``renderCycle()`` is the render thread's. With `tapped`,
/// every voice has a player's tap: the render thread also hands its mixed frames to the tap's ring, which ``refill()``
/// empties as the tap's thread does.
final class RenderRig {
    static let sampleRate = 48_000
    static let channelCount = 2
    static let periodFrames = 480
    /// Length of each fade, in frames.
    static let fadeFrames = sampleRate

    private let mixer: Mixer
    private let voices: [Voice]
    /// One decoder chunk of a stereo tone at −20 dBFS, pushed again and again.
    private let chunk: UnsafeMutableBufferPointer<Float>
    private let mix: UnsafeMutableBufferPointer<Float>
    private let encoded: UnsafeMutableRawPointer
    /// Frames pushed into each voice's ring so far (all voices get the same).
    private var queuedFrames = 0
    /// Frames rendered so far: the first device frame of the next cycle.
    private var renderedFrames: Int64 = 0
    private var nextFadeFrame: Int64 = 0
    private var fades = 0

    /// `voiceCount` voices playing from the next cycle on, each with a ring of `ringSeconds`, filled, and a tap when
    /// `tapped`.
    init(voiceCount: Int, ringSeconds: Double, tapped: Bool = false) {
        // No wait for a dry ring: a starved period is counted (see `starvedPeriods`) instead of slept through.
        mixer = Mixer(channelCount: Self.channelCount, maximumFrames: Self.periodFrames, starvationWait: 0)
        voices = (0..<voiceCount).map { index in
            let voice = Voice(
                channelCount: Self.channelCount, capacityFrames: Int(Double(Self.sampleRate) * ringSeconds),
                startingAt: 0)
            let pan = voiceCount == 1 ? 0.25 : Float(index) / Float(voiceCount - 1) - 0.5
            voice.panBits.store(pan.bitPattern, ordering: .relaxed)
            voice.isMeteringEnabled.store(true, ordering: .relaxed)
            voice.startFrame.store(Voice.immediately, ordering: .releasing)
            if tapped { _ = voice.tap.storeIfNilThenLoad(RenderTap(channelCount: Self.channelCount, capacityFrames: Self.sampleRate)) }
            return voice
        }
        for voice in voices {
            let added = mixer.add(voice)
            precondition(added, "the mixer has a slot for every voice of the benchmark")
        }
        let chunkFrames = PlaybackDecoder.chunkFrames
        chunk = .allocate(capacity: chunkFrames * Self.channelCount)
        for frame in 0..<chunkFrames {
            let phase = 2 * Double.pi * 440 * Double(frame) / Double(Self.sampleRate)
            chunk[frame * 2] = Float(0.1 * sin(phase))
            chunk[frame * 2 + 1] = Float(0.1 * cos(phase))
        }
        mix = .allocate(capacity: Self.periodFrames * Self.channelCount)
        mix.initialize(repeating: 0)
        encoded = .allocate(byteCount: Self.periodFrames * Self.channelCount * MemoryLayout<Int32>.size, alignment: 16)
        refill()
    }

    deinit {
        chunk.deallocate()
        mix.deallocate()
        encoded.deallocate()
    }

    /// Outside the measured region: tops every ring up in decoder-sized chunks, a marker with each, as
    /// `PlaybackDecoder` does; drains the meter records, as `updateMeters()` does; starts the next fade when
    /// the last one is over, as `setVolume(_:fadeDuration:)` does.
    func refill() {
        let chunkFrames = PlaybackDecoder.chunkFrames
        let secondsPerFrame = 1 / Double(Self.sampleRate)
        while voices.allSatisfy({ $0.audio.availableToWrite >= chunk.count && $0.markers.availableToWrite > 0 }) {
            let marker = PlaybackMarker(
                frames: chunkFrames, fileTime: Double(queuedFrames) * secondsPerFrame, secondsPerFrame: secondsPerFrame,
                item: 0, isEnd: false)
            for voice in voices {
                voice.audio.write(UnsafeBufferPointer(chunk))
                voice.markers.push(marker)
            }
            queuedFrames += chunkFrames
        }
        for voice in voices {
            voice.levels.discard(voice.levels.availableToRead)
            if let tap = voice.tap.load() {
                tap.audio.discard(tap.audio.availableToRead)
                tap.markers.discard(tap.markers.availableToRead)
            }
        }
        if renderedFrames >= nextFadeFrame { startFade() }
    }

    /// The measured work: one period mixed, then converted to the device's 32-bit integers.
    func renderCycle() {
        mixer.render(into: mix, frames: Self.periodFrames, firstFrame: renderedFrames)
        SampleConversion.encode(UnsafeBufferPointer(mix), as: .int32, into: encoded)
        renderedFrames += Int64(Self.periodFrames)
    }

    /// Periods in which a voice found its ring dry, over all voices: not zero means a cycle mixed less than
    /// it should have, and its figures do not count.
    var starvedPeriods: Int {
        voices.reduce(0) { $0 + $1.starvedPeriods.load(ordering: .relaxed) }
    }

    /// Frames the render thread dropped for a full tap, over all voices: not zero means a tap was not emptied.
    var droppedTapFrames: Int {
        voices.reduce(0) { $0 + ($1.tap.load()?.droppedFrames.load(ordering: .relaxed) ?? 0) }
    }

    private func startFade() {
        fades += 1
        let volume: Float = fades.isMultiple(of: 2) ? 1 : 0.5
        for voice in voices {
            voice.volumeBits.store(volume.bitPattern, ordering: .relaxed)
            voice.fadeFrames.store(Self.fadeFrames, ordering: .relaxed)
            voice.volumeGeneration.wrappingIncrement(ordering: .releasing)
        }
        nextFadeFrame = renderedFrames + Int64(Self.fadeFrames)
    }
}
