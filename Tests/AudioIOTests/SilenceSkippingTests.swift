import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// `AudioPlayer.skipsSilence` rendered offline: espeak-ng phrases with pauses of known length between them, over a
/// faint brown noise (so that a join without its crossfade would click), played into an `OfflineRenderer`.
@Suite(.timeLimit(.minutes(1))) struct SilenceSkippingTests {
    let scratch: ScratchDirectory
    let material: Material

    /// The recording: pauses (seconds) of 0.8, then phrase A, 1.2, B, 0.25 (shorter than the minimum: kept), C, 2.0, D,
    /// 0.8; over brown noise that peaks 20 dB under the threshold.
    struct Material: Sendable {
        let url: URL
        let samples: [Float]
        /// Where each phrase is in `samples`.
        let phrases: [Range<Int>]
        let pauses: [Double]
        /// sox's RMS level of the whole, in dBFS: what the threshold is relative to.
        let level: Double
        var seconds: Double { Double(samples.count) / 48000 }
    }

    static let settings = SilenceSkipping(minimumDuration: 0.4, keptDuration: 0.2, threshold: -26)

    init() throws {
        scratch = try ScratchDirectory()
        material = try Self.shared.get()
    }

    /// The material, made once for every test of the process (espeak-ng four times, sox twice), in a directory of its
    /// own that goes when the process ends.
    private static let shared = Result<Material, any Error> {
        try FileManager.default.createDirectory(at: sharedDirectory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: SilenceSkippingTests.sharedDirectory) }
        return try makeMaterial(in: sharedDirectory)
    }

    private static var sharedDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("voicememo-test-silence-\(getpid())")
    }

    private static func makeMaterial(in directory: URL) throws -> Material {
        let texts = ["please call Stella and ask her", "to bring these things", "with her from the store", "six spoons of fresh snow peas"]
        let phrases = try texts.map { try Speech.phrase($0, in: directory, peak: -3, trimLevel: -40) }
        let pauses = [0.8, 1.2, 0.25, 2.0, 0.8]
        var samples: [Float] = []
        var ranges: [Range<Int>] = []
        for (index, phrase) in phrases.enumerated() {
            samples += [Float](repeating: 0, count: Int(pauses[index] * 48000))
            ranges.append(samples.count..<(samples.count + phrase.count))
            samples += phrase
        }
        samples += [Float](repeating: 0, count: Int(pauses[4] * 48000))
        let noise = try Speech.noise("brownnoise", frames: samples.count, in: directory, peak: -70)
        for index in samples.indices { samples[index] += noise[index] }
        let url = directory.appendingPathComponent("material.wav")
        let writer = try AudioFileWriter(url: url, settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        return Material(url: url, samples: samples, phrases: ranges, pauses: pauses, level: try Sox.levels(of: url.path, channels: 1).rms[0])
    }

    func player(on renderer: OfflineRenderer) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: material.url)
        player.currentDevice = renderer.device
        var settings = Self.settings
        settings.referenceLevel = material.level
        player.silenceSkipping = settings
        player.skipsSilence = true
        return player
    }

    /// Everything `player` plays, to its end.
    func renderToEnd(_ renderer: OfflineRenderer) throws -> [Float] {
        let output = scratch.file("output-\(UUID().uuidString.prefix(6)).wav")
        try renderer.render(to: output, settings: AudioSettings(format: .wav, channelCount: 1, bitDepth: .float32))
        let file = try AudioFile(forReading: output)
        return try file.read(frameCount: Int(file.frameCount))
    }

    /// Seconds a pause of `pause` seconds in the file loses at `rate`: all but the kept 0.2 s as heard, if it is heard
    /// as 0.4 s or more.
    static func saved(_ pause: Double, rate: Double = 1) -> Double {
        pause / rate >= 0.4 ? pause - 0.2 * rate : 0
    }

    @Test func longPausesAreShortenedToTheKeptGapAndEverySpeechFrameIsKept() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(on: renderer)
        #expect(player.play())
        let output = try renderToEnd(renderer)
        let expectedSaving = material.pauses.map { Self.saved($0) }.reduce(0, +)
        let saving = material.seconds - Double(output.count) / 48000
        #expect(abs(saving - expectedSaving) <= 0.05 * expectedSaving, "saved \(saving) s, expected \(expectedSaving) s")

        // Each phrase is in the output whole: the cross-correlation with it peaks at 1 where it is.
        var starts: [Int] = []
        var savedBefore = 0.0
        for (index, phrase) in material.phrases.enumerated() {
            savedBefore += Self.saved(material.pauses[index])
            let expected = phrase.lowerBound - Int(savedBefore * 48000)
            let match = bestMatch(of: Array(material.samples[phrase]), in: output, around: expected, within: 960)
            #expect(match.correlation > 0.9999, "phrase at \(phrase) correlates \(match.correlation) at best")
            starts.append(match.lag)
        }
        // The pauses between them: the short one whole, the long ones cut to 0.2 s (± a frame).
        let gaps = (1..<starts.count).map { starts[$0] - (starts[$0 - 1] + material.phrases[$0 - 1].count) }
        #expect(abs(gaps[0] - 9600) <= 1 && abs(gaps[2] - 9600) <= 1, "gaps \(gaps)")
        #expect(gaps[1] == material.phrases[2].lowerBound - material.phrases[1].upperBound, "the 0.25 s pause stays whole")

        // No click: within the shortened pauses, no sample-to-sample step larger than the noise's own largest.
        let noiseStep = largestStep(in: Array(material.samples[material.phrases[0].upperBound..<material.phrases[1].lowerBound]))
        for (index, gap) in gaps.enumerated() {
            let start = starts[index] + material.phrases[index].count
            let step = largestStep(in: Array(output[start..<(start + gap)]))
            #expect(step <= 2 * noiseStep, "a step of \(step) in the pause after phrase \(index); the noise steps \(noiseStep) at most")
        }
    }

    @Test func theTimeStaysTheFilesTime() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(on: renderer)
        let crossed = Mutex<[TimeInterval]>([])
        // In the middle of the 2-second pause, which is not heard.
        let inPause = Double(material.phrases[3].lowerBound) / 48000 - 1
        _ = player.addBoundaryTimeObserver(forTimes: [inPause]) { time in crossed.withLock { $0.append(time) } }
        #expect(player.play())
        // Into phrase D, half a second: the file's time there counts the pauses as they are in the file.
        let heard = material.phrases[3].lowerBound + 24000 - Int((Self.saved(0.8) + Self.saved(1.2) + Self.saved(2.0)) * 48000)
        _ = renderer.render(frameCount: heard)
        let fileTime = Double(material.phrases[3].lowerBound + 24000) / 48000
        #expect(abs(player.currentTime - fileTime) < 0.03, "currentTime \(player.currentTime), the file's \(fileTime)")
        #expect(abs(player.skippedSilenceDuration - (Self.saved(0.8) + Self.saved(1.2) + Self.saved(2.0))) < 0.01)
        // Observers run on the engine's event thread, at its next tick after the render.
        #expect(try await eventually { crossed.withLock { $0.count } == 1 }, "the boundary in the skipped pause is crossed")
        #expect(crossed.withLock { $0.count } == 1, "once")

        // A seek lands on the file's time, and skipping goes on from there.
        player.currentTime = 1.0
        #expect(abs(player.currentTime - 1.0) < 0.001)
        _ = renderer.render(frameCount: 4800)
        #expect(abs(player.currentTime - 1.1) < 0.03)
    }

    @Test func atARateOtherThanOneThePausesAreShortenedAsHeard() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(on: renderer)
        player.enableRate = true
        player.rate = 1.5
        #expect(player.play())
        let output = try renderToEnd(renderer)
        let expectedSaving = material.pauses.map { Self.saved($0, rate: 1.5) }.reduce(0, +) / 1.5
        let saving = material.seconds / 1.5 - Double(output.count) / 48000
        #expect(abs(saving - expectedSaving) <= 0.05 * expectedSaving, "saved \(saving) s heard, expected \(expectedSaving) s")
    }

    @Test func aPauseAcrossTheSeamOfALoopIsShortenedAsOne() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(on: renderer)
        player.numberOfLoops = 1
        #expect(player.play())
        let output = try renderToEnd(renderer)
        // The 0.8 s at the end of the first pass and at the start of the second make one pause of 1.6 s.
        let within = material.pauses.dropFirst().dropLast().map { Self.saved($0) }.reduce(0, +)
        let expectedSaving = Self.saved(0.8) + within + Self.saved(1.6) + within + Self.saved(0.8)
        let saving = 2 * material.seconds - Double(output.count) / 48000
        #expect(abs(saving - expectedSaving) <= 0.05 * expectedSaving, "saved \(saving) s, expected \(expectedSaving) s")
    }

    @Test func turnedOffWhilePlayingTheRestPlaysWhole() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(on: renderer)
        #expect(player.play())
        _ = renderer.render(frameCount: material.phrases[1].lowerBound)
        player.skipsSilence = false
        let output = try renderToEnd(renderer)
        // Only the first two pauses (those before the switch, give or take the ring's 0.25 s) were shortened.
        let heard = material.phrases[1].lowerBound + output.count
        let saving = Double(material.samples.count - heard) / 48000
        #expect(abs(saving - (Self.saved(0.8) + Self.saved(1.2))) < 0.05 * (Self.saved(0.8) + Self.saved(1.2)), "saved \(saving) s")
    }
}

extension SilenceSkippingTests {
    @Test func withoutAReferenceLevelThePlayerMeasuresItAsItPlaysAndSkipsNothingInTheFirstSecond() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try AudioPlayer(contentsOf: material.url)
        player.currentDevice = renderer.device
        player.silenceSkipping = Self.settings
        player.skipsSilence = true
        #expect(player.play())
        let output = try renderToEnd(renderer)
        // The 0.8 s at the start passes whole; by the next pause the level of what was heard is known.
        let expectedSaving = material.pauses.dropFirst().map { Self.saved($0) }.reduce(0, +)
        let saving = material.seconds - Double(output.count) / 48000
        #expect(abs(saving - expectedSaving) <= 0.05 * expectedSaving, "saved \(saving) s, expected \(expectedSaving) s")
    }

    @Test func aQueueSkipsTheSilenceOfEachItem() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let queue = QueuePlayer(items: try await readyItems([material.url, material.url]))
        queue.currentDevice = renderer.device
        var settings = Self.settings
        settings.referenceLevel = material.level
        queue.silenceSkipping = settings
        queue.skipsSilence = true
        queue.play()
        let output = try renderToEnd(renderer)
        // Each item's pauses, its first and last included: the end of an item ends a pause.
        let expectedSaving = 2 * material.pauses.map { Self.saved($0) }.reduce(0, +)
        let saving = 2 * material.seconds - Double(output.count) / 48000
        #expect(abs(saving - expectedSaving) <= 0.05 * expectedSaving, "saved \(saving) s, expected \(expectedSaving) s")
        #expect(abs(queue.skippedSilenceDuration - saving) < 0.01)
    }
}

/// Where, within `within` samples of `expected`, `needle` best matches in `haystack`, and the normalized
/// cross-correlation there (1: the same samples): the lag is found with the needle's first 1024 samples, and the
/// correlation computed over all of it.
func bestMatch(of needle: [Float], in haystack: [Float], around expected: Int, within: Int) -> (lag: Int, correlation: Double) {
    let probe = needle.prefix(1024).map(Double.init)
    let probeEnergy = probe.reduce(0) { $0 + $1 * $1 }
    var best = (lag: 0, score: -Double.infinity)
    haystack.withUnsafeBufferPointer { hay in
        for lag in max(expected - within, 0)...max(min(expected + within, hay.count - needle.count), 0) {
            var dot = 0.0, energy = 0.0
            for index in probe.indices {
                let value = Double(hay[lag + index])
                dot += probe[index] * value
                energy += value * value
            }
            let score = dot / max((probeEnergy * energy).squareRoot(), .leastNonzeroMagnitude)
            if score > best.score { best = (lag, score) }
        }
    }
    let window = haystack[best.lag..<min(best.lag + needle.count, haystack.count)].map(Double.init)
    let full = needle.prefix(window.count).map(Double.init)
    let dot = zip(full, window).reduce(0) { $0 + $1.0 * $1.1 }
    let energy = (full.reduce(0) { $0 + $1 * $1 } * window.reduce(0) { $0 + $1 * $1 }).squareRoot()
    return (best.lag, dot / energy)
}

/// The largest difference between two neighbouring samples.
func largestStep(in samples: [Float]) -> Float {
    zip(samples, samples.dropFirst()).map { abs($1 - $0) }.max() ?? 0
}
