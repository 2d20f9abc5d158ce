import AudioIO
import Foundation
import TestSupport
import Testing

/// `rate` from a quarter to four times by either pitch algorithm, and `rate = 0` pausing, rendered offline: lengths to
/// the frame and pitches by their measured frequency.
@Suite(.timeLimit(.minutes(1))) struct PitchAlgorithmTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// A mono sine of `hertz` at 48 kHz.
    func tone(_ name: String, hertz: Int, seconds: Double) throws -> URL {
        let file = scratch.file(name)
        try Sox.synth(to: file.path, rate: 48000, channels: 1, seconds: seconds, "sine \(hertz)")
        return file
    }

    func player(_ file: URL, on renderer: OfflineRenderer, rate: Float, _ algorithm: AudioTimePitchAlgorithm) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = renderer.device
        player.enableRate = true
        player.audioTimePitchAlgorithm = algorithm
        player.rate = rate
        return player
    }

    /// Hertz of a tone at 48 kHz from its zero crossings, leaving out 0.1 s at each end.
    func frequency(_ tone: [Float]) -> Double {
        let sound = tone.dropFirst(4800).dropLast(4800)
        return Double(zip(sound, sound.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count) / 2 / (Double(sound.count) / 48000)
    }

    @Test(arguments: [(Float(1.5), 1500.0), (0.25, 250), (4, 4000)])
    func varispeedMovesThePitchWithTheSpeed(rate: Float, hertz: Double) throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(try tone("tone.wav", hertz: 1000, seconds: 2), on: renderer, rate: rate, .varispeed)
        #expect(player.audioTimePitchAlgorithm == .varispeed)
        #expect(player.play())
        let rendered = try renderer.renderAll(in: scratch)
        #expect(rendered.count == Int((96000 / Double(rate)).rounded()), "2 s at \(rate) times: \(rendered.count) frames")
        let measured = frequency(rendered)
        #expect(abs(measured - hertz) < hertz * 0.005, "1 kHz at \(rate) times is heard at \(measured) Hz")
    }

    @Test(arguments: [Float(0.25), 4])
    func timeDomainKeepsThePitchFromAQuarterToFourTimes(rate: Float) throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(try tone("tone.wav", hertz: 1000, seconds: 2), on: renderer, rate: rate, .timeDomain)
        #expect(player.play())
        let rendered = try renderer.renderAll(in: scratch)
        #expect(rendered.count == Int((96000 / Double(rate)).rounded()), "2 s at \(rate) times: \(rendered.count) frames")
        let measured = frequency(rendered)
        #expect(abs(measured - 1000) < 1000 * 0.02, "1 kHz at \(rate) times is heard at \(measured) Hz")
    }

    @Test func theAlgorithmChangedWhilePlayingIsHeardFromWherePlaybackWas() throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(try tone("tone.wav", hertz: 1000, seconds: 2), on: renderer, rate: 2, .timeDomain)
        #expect(player.play())
        let kept = renderer.render(frameCount: 12000)
        let before = player.currentTime
        #expect(abs(before - 0.5) < 0.01, "0.25 s rendered at twice the speed: \(before) s into the file")
        player.audioTimePitchAlgorithm = .varispeed
        #expect(player.isPlaying)
        #expect(abs(player.currentTime - before) < 0.001, "the change goes on from the position heard")
        let rest = try renderer.renderAll(in: scratch)
        #expect(abs(frequency(Array(kept)) - 1000) < 20, "time-domain: the pitch kept")
        #expect(abs(frequency(rest) - 2000) < 10, "varispeed: an octave up")
        #expect(abs(rest.count - 36000) <= 1, "the 1.5 s left at twice the speed: \(rest.count) frames")
    }

    @Test func rate0PausesAPlayerWhosePositionThenHoldsUntilPlayResumesAtItsSpeed() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let player = try player(try tone("tone.wav", hertz: 1000, seconds: 1), on: renderer, rate: 1.5, .varispeed)
        let log = EventLog(player.events())
        #expect(player.play())
        _ = renderer.render(frameCount: 9600)
        player.rate = 0
        #expect(player.timeControlStatus == .paused)
        #expect(!player.isPlaying)
        #expect(player.rate == 1.5, "the speed stays, for play() to resume at")
        let held = player.currentTime
        #expect(abs(held - 0.3) < 0.01, "0.2 s rendered at 1.5 times: \(held)")
        #expect(renderer.render(frameCount: 9600).allSatisfy { $0 == 0 }, "paused: silence")
        #expect(player.currentTime == held, "the position holds")
        #expect(player.play())
        _ = renderer.render(frameCount: 4800)
        #expect(abs(player.currentTime - (held + 0.15)) < 0.01, "on at 1.5 times: \(player.currentTime)")
        try await until { log.events.filter { if case .timeControlStatusChanged = $0 { true } else { false } }.count == 3 }
        // `.started` comes from the engine's event thread, whenever the first frame was mixed.
        #expect(log.events.filter { $0 != .started } == [
            .statusChanged(.readyToPlay), .timeControlStatusChanged(.playing), .timeControlStatusChanged(.paused),
            .timeControlStatusChanged(.playing),
        ], "a pause and a resume, no change of rate: \(log.events)")
    }

    @Test func aQueueChangesSpeedByItsAlgorithmAcrossItemsAndRate0PausesIt() async throws {
        let renderer = try OfflineRenderer(channelCount: 1)
        let items = [try tone("a.wav", hertz: 1000, seconds: 1), try tone("b.wav", hertz: 500, seconds: 1)]
        let queue = QueuePlayer(items: try await readyItems(items))
        queue.currentDevice = renderer.device
        queue.audioTimePitchAlgorithm = .varispeed
        // What play() resumes at, as AVPlayer's defaultRate; a rate other than 0 plays at once.
        queue.defaultRate = 2
        queue.rate = 2
        #expect(queue.isPlaying, "a rate other than 0 plays")
        let first = renderer.render(frameCount: 19200)
        queue.rate = 0
        #expect(queue.timeControlStatus == .paused && !queue.isPlaying)
        #expect(queue.rate == 2)
        let held = queue.currentTime
        #expect(renderer.render(frameCount: 4800).allSatisfy { $0 == 0 }, "paused: silence")
        #expect(queue.currentTime == held)
        #expect(queue.play())
        let rest = try renderer.renderAll(in: scratch)
        #expect(first.count + rest.count == 48000, "2 s of items at twice the speed, back to back: \(first.count + rest.count) frames")
        #expect(abs(frequency(Array(first)) - 2000) < 20)
        #expect(abs(frequency(Array(rest.suffix(19200))) - 1000) < 10, "the second item, an octave up too")
    }
}
