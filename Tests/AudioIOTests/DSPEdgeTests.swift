@testable import AudioIO
import Foundation
import TestSupport
import Testing

/// The DSP at its edges: every stage fed what a device gone wrong or a damaged float file delivers (NaN, ±infinity,
/// denormals, values past full scale), and what ordinary input can be at its limits (silence, full scale, DC, no frame,
/// one frame, a block far larger than a period). None traps; the measures give numbers (NaN and infinity count as
/// silence), and a filter fed NaN is not poisoned for what follows.
@Suite(.timeLimit(.minutes(1))) struct DSPEdgeTests {
    /// One edge input.
    enum Edge: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case silence, fullScale, dc, noFrames, oneFrame, hugeBlock, nan, infinity, negativeInfinity, denormals
        case pastFullScale, largestFloat, noiseWithNonFinite

        var testDescription: String { rawValue }

        /// Frames of the input.
        var frames: Int {
            switch self {
            case .noFrames: 0
            case .oneFrame: 1
            // Far more than a period (and than the writer's and the converter's blocks).
            case .hugeBlock: 1 << 18
            default: 4800
            }
        }

        /// The input, `channels` interleaved channels.
        func samples(channels: Int) -> [Float] {
            var random = SeededGenerator(seed: 32)
            return (0..<(frames * channels)).map { index in
                let noise = Float.random(in: -0.5...0.5, using: &random)
                switch self {
                case .silence, .noFrames: return 0
                case .fullScale: return index / channels % 2 == 0 ? 1 : -1
                case .dc: return 0.5
                case .oneFrame, .hugeBlock: return noise
                case .nan: return .nan
                case .infinity: return .infinity
                case .negativeInfinity: return -.infinity
                case .denormals: return index % 2 == 0 ? .leastNonzeroMagnitude : -.leastNormalMagnitude / 2
                case .pastFullScale: return index % 2 == 0 ? 8 : -8
                case .largestFloat: return index % 2 == 0 ? .greatestFiniteMagnitude : -.greatestFiniteMagnitude
                case .noiseWithNonFinite:
                    guard index % 3 == 0 else { return noise }
                    return [Float.nan, .infinity, -.infinity][(index / 3) % 3]
                }
            }
        }

        /// Whether some of its samples are NaN or ±infinity.
        var hasNonFinite: Bool { [.nan, .infinity, .negativeInfinity, .noiseWithNonFinite].contains(self) }
    }

    /// `samples` with NaN and ±infinity as 0: what every measure is to take them as.
    func silenced(_ samples: [Float]) -> [Float] { samples.map { $0.isFinite ? $0 : 0 } }

    @Test func theEdgeInputsAreWhatTheySay() {
        #expect(Edge.noiseWithNonFinite.samples(channels: 1).contains { $0.isNaN })
        #expect(Edge.noiseWithNonFinite.samples(channels: 1).contains(.infinity))
        #expect(Edge.noiseWithNonFinite.samples(channels: 1).contains(-.infinity))
        #expect(Edge.noiseWithNonFinite.samples(channels: 1).filter(\.isFinite).count == 3200)
        // Subnormal, or 0 where the process flushes them (a library built with -ffast-math sets the CPU to).
        #expect(Edge.denormals.samples(channels: 1).allSatisfy { $0.magnitude < Float.leastNormalMagnitude })
    }

    @Test(arguments: Edge.allCases, [1, 2])
    func theMetersGiveLevelsInDBFSAndTakeNonFiniteSamplesAsSilence(edge: Edge, channels: Int) {
        let samples = edge.samples(channels: channels)
        var meter = LevelAccumulator(channelCount: channels)
        samples.withUnsafeBufferPointer { meter.add($0) }
        let levels = meter.levels
        #expect((levels.peak + levels.average).allSatisfy { $0.isFinite && $0 >= AudioLevels.floor })
        var reference = LevelAccumulator(channelCount: channels)
        silenced(samples).withUnsafeBufferPointer { reference.add($0) }
        #expect(levels == reference.levels)
        switch edge {
        case .silence, .noFrames, .nan, .infinity, .negativeInfinity:
            #expect(levels.peak.allSatisfy { $0 == AudioLevels.floor })
        case .fullScale:
            #expect(levels.peak.allSatisfy { $0 == 0 } && levels.average.allSatisfy { abs($0) < 1e-9 })
        case .dc:
            #expect(levels.average.allSatisfy { abs($0 - 20 * log10(0.5)) < 1e-6 })
        default:
            break
        }
        // Through the record the capture thread hands over, as a live meter reads it.
        var record = [Double](repeating: 0, count: meter.recordLength)
        record.withUnsafeMutableBufferPointer { meter.write(into: $0) }
        var merged = LevelAccumulator(channelCount: channels)
        record.withUnsafeBufferPointer { merged.merge($0) }
        #expect(merged.levels == levels)
    }

    @Test(arguments: Edge.allCases, [1, 2])
    func theWaveformStaysOnItsScaleAndDrawsNonFiniteSamplesAsSilence(edge: Edge, channels: Int) {
        let samples = edge.samples(channels: channels)
        var builder = WaveformBuilder(channelCount: channels, sampleRate: 48000, maximumLength: 16)
        samples.withUnsafeBufferPointer { builder.add($0) }
        var reference = WaveformBuilder(channelCount: channels, sampleRate: 48000, maximumLength: 16)
        silenced(samples).withUnsafeBufferPointer { reference.add($0) }
        let waveform = builder.waveform
        #expect(waveform == reference.waveform)
        #expect(edge.frames > 16 * 256 ? waveform.length <= 16 : waveform.length == (edge.frames + 255) / 256)
        for pixel in 0..<waveform.length {
            for channel in 0..<channels {
                #expect(waveform.minimum(pixel: pixel, channel: channel) <= waveform.maximum(pixel: pixel, channel: channel))
            }
        }
        switch edge {
        case .nan, .infinity, .negativeInfinity, .silence, .denormals:
            #expect(waveform.data.allSatisfy { $0 == 0 || $0 == -1 }, "silence (a negative denormal may round down to -1)")
        case .fullScale, .pastFullScale, .largestFloat:
            #expect(Set(waveform.data) == [-32768, 32767])
        default:
            break
        }
    }

    @Test func aSampleOnTheWaveformsScaleIsClampedNotTrapped() {
        #expect(WaveformBuilder.sixteenBit(.nan) == 0)
        #expect(WaveformBuilder.sixteenBit(.infinity) == 32767 && WaveformBuilder.sixteenBit(-.infinity) == -32768)
        #expect(WaveformBuilder.sixteenBit(.greatestFiniteMagnitude) == 32767)
        #expect(WaveformBuilder.sixteenBit(1) == 32767 && WaveformBuilder.sixteenBit(-1) == -32768)
        #expect(WaveformBuilder.sixteenBit(0.5) == 16384 && WaveformBuilder.sixteenBit(-1.0 / 65536) == -1)
    }

    @Test(arguments: Edge.allCases, [1, 2])
    func loudnessAndTruePeakAreNumbersAndNonFiniteSamplesCountAsSilence(edge: Edge, channels: Int) throws {
        let samples = edge.samples(channels: channels)
        let meter = try LoudnessMeter(channelCount: channels, sampleRate: 48000)
        samples.withUnsafeBufferPointer { meter.add($0) }
        let loudness = try meter.loudness()
        let reference = try LoudnessMeter(channelCount: channels, sampleRate: 48000)
        silenced(samples).withUnsafeBufferPointer { reference.add($0) }
        #expect(try loudness == reference.loudness())
        // As documented: integrated LUFS from -70 (silence, or too short to gate), a range in LU, a true peak in dBTP.
        #expect(loudness.integrated.isFinite && loudness.integrated >= AudioLoudness.silence)
        #expect(loudness.range.isFinite && loudness.range >= 0)
        #expect(loudness.truePeak.isFinite && loudness.truePeak >= AudioLevels.floor)
        if [.nan, .infinity, .negativeInfinity, .silence, .noFrames].contains(edge) {
            #expect(loudness.integrated == AudioLoudness.silence && loudness.truePeak == AudioLevels.floor)
        }
        if edge == .fullScale { #expect(loudness.truePeak >= 0) }
    }

    @Test func aBlockOfNaNDoesNotPoisonTheLoudnessOfWhatFollows() throws {
        let tone = (0..<96000).map { Float(0.25 * sin(2 * Double.pi * 997 * Double($0) / 48000)) }
        let meter = try LoudnessMeter(channelCount: 1, sampleRate: 48000)
        let clean = try LoudnessMeter(channelCount: 1, sampleRate: 48000)
        let garbage = [Float](repeating: .nan, count: 4800) + [.infinity, -.infinity]
        for (block, reference) in [(garbage, silenced(garbage)), (tone, tone)] {
            block.withUnsafeBufferPointer { meter.add($0) }
            reference.withUnsafeBufferPointer { clean.add($0) }
        }
        let loudness = try meter.loudness()
        #expect(try loudness == clean.loudness())
        // A 997 Hz sine of amplitude 0.25 (-12.04 dBFS) reads 3.01 dB lower in LUFS, as a full-scale one reads -3.01.
        #expect(abs(loudness.integrated - -15.05) < 0.1, "\(loudness)")
        #expect(abs(loudness.truePeak - 20 * log10(0.25)) < 0.1)
    }

    @Test(arguments: [Edge.nan, .infinity, .noiseWithNonFinite, .largestFloat, .denormals], [44100.0, 96000, 192000])
    func theTruePeakOfNonFiniteSamplesIsThatOfSilence(edge: Edge, rate: Double) throws {
        let meter = try TruePeakMeter(channelCount: 1, sampleRate: rate)
        let reference = try TruePeakMeter(channelCount: 1, sampleRate: rate)
        let samples = edge.samples(channels: 1)
        try samples.withUnsafeBufferPointer { try meter.add($0) }
        try silenced(samples).withUnsafeBufferPointer { try reference.add($0) }
        let peak = try meter.finish(), expected = try reference.finish()
        #expect(peak.isFinite && peak == expected)
    }

    @Test(arguments: Edge.allCases)
    func skippingSilenceTakesEveryInputAndAGarbageStartLeavesItsThresholdSound(edge: Edge) {
        let channels = 2
        let skipper = SilenceSkipper(
            channelCount: channels, sampleRate: 48000, settings: SilenceSkipping(), maximumInput: 4096)
        // The edge first (the second the threshold is learnt from), then a tone with a second of silence in it.
        let tone = (0..<24000).flatMap { frame in Array(repeating: Float(0.3 * sin(Double(frame) / 8)), count: channels) }
        let input = edge.samples(channels: channels) + [Float](repeating: 0.2, count: 48000 * channels) + tone
            + [Float](repeating: 0, count: 48000 * channels) + tone
        var offset = 0, produced = 0, skipped = 0
        input.withUnsafeBufferPointer { input in
            while offset < input.count {
                let step = skipper.process(UnsafeBufferPointer(rebasing: input[offset...]))
                offset += step.consumed * channels
                produced += step.produced
                skipped += step.skipped
            }
            skipped += skipper.end()
            produced += skipper.process(UnsafeBufferPointer(rebasing: input[input.count...])).produced
        }
        #expect(produced + skipped == input.count / channels)
        // The second of silence shortened to a fifth (less its fades), and nothing else: the sound is all kept.
        #expect((24000...48000).contains(skipped), "\(skipped) frames left out")
    }

    @Test(arguments: Edge.allCases)
    func enhancingSpeechGivesNumbersWhateverItIsFed(edge: Edge) throws {
        let enhancer = try SpeechEnhancer(sampleRate: 48000, channelCount: 1, settings: SpeechEnhancement())
        var output: [Float] = []
        let tone = (0..<9600).map { Float(0.3 * sin(Double($0) / 6)) }
        for block in [edge.samples(channels: 1), tone] {
            try block.withUnsafeBufferPointer { block in
                try enhancer.process(block) { output += $0 }
            }
        }
        try enhancer.finish { output += $0 }
        #expect(output.count == edge.frames + tone.count)
        #expect(output.allSatisfy { $0.isFinite })
        #expect(output.suffix(4800).contains { abs($0) > 0.01 }, "the tone after the edge is still heard")
    }

    @Test(arguments: Edge.allCases)
    func resamplingAndTimeStretchingTakeAnyInput(edge: Edge) throws {
        let samples = edge.samples(channels: 2)
        let resampler = try Resampler(inputRate: 44100, outputRate: 48000, channelCount: 2)
        var output = [Float](repeating: 0, count: 8192 * 2)
        var resampled = 0
        try output.withUnsafeMutableBufferPointer { output in
            try samples.withUnsafeBufferPointer { samples in
                try resampler.processAll(samples, through: output) { resampled += $0.count / 2 }
            }
            try resampler.flushAll(through: output) { resampled += $0.count / 2 }
        }
        #expect(abs(resampled - edge.frames * 48000 / 44100) <= 1)

        let stretcher = TimeStretcher(sampleRate: 48000, channelCount: 2)
        stretcher.speed = 1.5
        var stretched = 0
        output.withUnsafeMutableBufferPointer { output in
            samples.withUnsafeBufferPointer { samples in
                stretcher.process(samples, through: output) { stretched += $0.count / 2 }
            }
            stretcher.flush(through: output) { stretched += $0.count / 2 }
        }
        #expect(stretched <= edge.frames)
    }

    @Test(arguments: Edge.allCases)
    func aDownmixOfFiniteSamplesIsFinite(edge: Edge) throws {
        let downmix = try #require(Downmix(from: 6, to: 2))
        let samples = edge.samples(channels: 6)
        var output = [Float](repeating: 0, count: edge.frames * 2)
        samples.withUnsafeBufferPointer { samples in output.withUnsafeMutableBufferPointer { downmix.apply(samples, into: $0) } }
        if !edge.hasNonFinite, edge != .largestFloat { #expect(output.allSatisfy { $0.isFinite }) }
        if edge == .fullScale { #expect(output.allSatisfy { abs($0) <= 1.0001 }) }
    }

    @Test(arguments: Edge.allCases)
    func samplesForADeviceAreClippedAndNaNIsSilence(edge: Edge) {
        let samples = edge.samples(channels: 1)
        var sixteen = [Int16](repeating: 7, count: samples.count)
        var twentyFour = [UInt8](repeating: 7, count: 3 * samples.count)
        samples.withUnsafeBufferPointer { samples in
            sixteen.withUnsafeMutableBytes { SampleConversion.encode(samples, as: .int16, into: $0.baseAddress!) }
            twentyFour.withUnsafeMutableBytes { SampleConversion.encode(samples, as: .int24, into: $0.baseAddress!) }
        }
        for (index, sample) in samples.enumerated() {
            let scaled = (sample * 32768).rounded()
            let expected: Int16 = sample.isNaN ? 0 : scaled >= 32767 ? .max : scaled <= -32768 ? .min : Int16(scaled)
            #expect(sixteen[index] == expected)
        }
        if edge == .nan { #expect(twentyFour.allSatisfy { $0 == 0 }) }
    }

    @Test func theNonFiniteSamplesOfABlockAreCountedAndZeroed() {
        var samples = Edge.noiseWithNonFinite.samples(channels: 1)
        #expect(samples.withUnsafeBufferPointer { NonFiniteSamples.count(in: $0) } == 1600)
        let finite = samples.filter(\.isFinite)
        #expect(samples.withUnsafeMutableBufferPointer { NonFiniteSamples.zero(in: $0) } == 1600)
        #expect(samples.allSatisfy { $0.isFinite } && samples.filter { $0 != 0 } == finite.filter { $0 != 0 })
    }
}
