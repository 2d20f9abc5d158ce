import AudioIO
import Foundation
import Synchronization
import TestSupport
import Testing

/// Playback on a device with a real clock: a PulseAudio null sink, started by the tests. `.clocked`: `make test` runs
/// it after the suites that drive unclocked devices as fast as the CPU goes, which would starve the sound server of
/// the time it keeps.
@Suite(.serialized, .timeLimit(.minutes(3)), .tags(.clocked)) struct ClockedPlaybackTests {
    let scratch: ScratchDirectory

    init() throws {
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
    }

    private func player(seconds: Double, on server: PulseAudioServer) throws -> AudioPlayer {
        let url = scratch.file("tone-\(seconds).wav")
        try Sox.synth(to: url.path, rate: 48000, channels: 2, seconds: seconds, "sine 440 sine 440")
        let player = try AudioPlayer(contentsOf: url)
        player.currentDevice = server.device
        return player
    }

    private func waitForStart(_ player: AudioPlayer) async {
        let events = player.events()
        player.play()
        for await event in events where event == .started { return }
    }

    @Test func positionAndDeviceTimeAdvanceAtRealSpeed() async throws {
        try await PulseAudioServer.exclusive { server in
            // Long enough to be still playing when a busy machine makes every step below late.
            let player = try player(seconds: 12, on: server)
            await waitForStart(player)
            // A sound server may take a moment to get a new stream going; the speed is measured once it runs.
            while player.currentTime < 0.3 { try await Task.sleep(for: .milliseconds(10)) }
            let start = (wall: ContinuousClock.now, position: player.currentTime, device: player.deviceCurrentTime)
            try await Task.sleep(for: .seconds(2))
            let wall = (ContinuousClock.now - start.wall) / .seconds(1)
            let position = player.currentTime - start.position
            let device = player.deviceCurrentTime - start.device
            #expect(player.isPlaying, "still playing at \(player.currentTime) s")
            player.stop()
            #expect(abs(position / device - 1) < 0.05, "currentTime moved \(position) s while the device played \(device) s")
            // PulseAudio's null sink follows the system clock, late by what a busy machine delays it (on a quiet
            // one the two agree within 1 %); a device that stalled or raced would be far outside.
            #expect(abs(device / wall - 1) < 0.2, "deviceCurrentTime moved \(device) s in \(wall) s")
        }
    }

    /// With the rate enabled a player starts at 1, its samples passing the time-stretcher by; the rate then goes
    /// to 2 at 0.5 s, and in the second case back to 1 at 2 s. The decoder runs up to 0.25 s of output ahead
    /// of what is heard, so 4 s of audio take 0.75 s at 1 and 3.25 s at 2: 2.4 s; or 1.75 s at 2 and the last
    /// 1.5 s at 1 again: 3.1 s. The player finishes, having played what the stretcher still held.
    @Test(arguments: [([2.0], 2.2...2.9), ([2.0, 1.0], 2.8...3.6)] as [([Float], ClosedRange<Double>)])
    func theRateLeaving1MidPlayPlaysTheRestFasterAndFinishes(rates: [Float], seconds expected: ClosedRange<Double>) async throws {
        try await PulseAudioServer.exclusive { server in
            let player = try player(seconds: 4, on: server)
            player.enableRate = true
            let changesMade = Mutex(0)
            let changes = player.addBoundaryTimeObserver(forTimes: Array([0.5, 2].prefix(rates.count))) { [player] _ in
                let change = changesMade.withLock { count in
                    defer { count += 1 }
                    return count
                }
                player.rate = rates[min(change, rates.count - 1)]
            }
            let events = player.events()
            player.play()
            var started = ContinuousClock.now
            for await event in events {
                if event == .started { started = .now }
                if case .finishedPlaying(let successfully) = event {
                    #expect(successfully)
                    break
                }
            }
            player.removeTimeObserver(changes)
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            #expect(changesMade.withLock { $0 } == rates.count)
            #expect(expected.contains(seconds), "played 4 s of audio in \(seconds) s")
        }
    }

    @Test func pauseHoldsThePositionAndResumeGoesOnFromIt() async throws {
        try await PulseAudioServer.exclusive { server in
            let player = try player(seconds: 4, on: server)
            await waitForStart(player)
            try await Task.sleep(for: .milliseconds(300))
            player.pause()
            try await Task.sleep(for: .milliseconds(50))
            let paused = player.currentTime
            #expect(paused > 0)
            try await Task.sleep(for: .milliseconds(300))
            #expect(player.currentTime == paused, "the position holds while paused")
            player.play()
            var resumed = player.currentTime
            while resumed == paused { try await Task.sleep(for: .milliseconds(2)); resumed = player.currentTime }
            #expect(resumed > paused && resumed < paused + 0.05, "resumes from \(paused), not elsewhere: \(resumed)")
            player.currentTime = 3
            #expect(player.currentTime >= 3 && player.currentTime < 3.05, "a seek goes on from the time asked: \(player.currentTime)")
            var after = player.currentTime
            for _ in 0..<300 where after == 3 {
                try await Task.sleep(for: .milliseconds(10))
                after = player.currentTime
            }
            #expect(after > 3 && after < 3.1, "and plays on from there: \(after)")
            player.stop()
            #expect(player.currentTime > 3, "stop keeps the position")
        }
    }

    /// Another client starting on the same sink grows the server's queue at once; the position a player reports (and
    /// MPRIS publishes) never goes back for it while the audio plays on.
    @Test func anotherClientStartingOnTheSinkNeverMovesThePositionBack() async throws {
        try await PulseAudioServer.exclusive { server in
            let player = try player(seconds: 8, on: server)
            let other = scratch.file("other.wav")
            try Sox.synth(to: other.path, rate: 44100, channels: 2, seconds: 0.3, "sine 660", volume: 0.1)
            await waitForStart(player)
            var positions: [TimeInterval] = []
            // Six other clients, one after another: each start is a moment the server may grow its queue.
            var others: [RunningTool] = []
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(3.5) {
                positions.append(player.currentTime)
                if others.count < 6, ContinuousClock.now - started > .milliseconds(300 + 500 * others.count) {
                    others.append(try Tool.start("paplay", [other.path], environment: try server.environment))
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            for paplay in others.map({ $0.finish() }) { #expect(paplay.status == 0, "\(paplay.standardError)") }
            player.stop()
            let steps = zip(positions, positions.dropFirst())
            #expect(steps.allSatisfy { $1 >= $0 }, "backwards: \(steps.filter { $1 < $0 }.prefix(5).map { "\($0) → \($1)" })")
            #expect((positions.last ?? 0) > 1.5, "it played on: \(positions.last ?? 0) s")
        }
    }

    @Test func aSeekInTheLastPassOfALoopDoesNotAddAPass() async throws {
        try await PulseAudioServer.exclusive { server in
            // Passes long enough that a test resumed late on a busy machine still seeks inside the last one.
            let player = try player(seconds: 2, on: server)
            player.numberOfLoops = 1
            let events = player.events()
            // Playback crosses 0.1 s once into each pass.
            let (crossings, crossed) = AsyncStream<Void>.makeStream()
            let passes = Mutex(0)
            let observer = player.addBoundaryTimeObserver(forTimes: [0.1]) { _ in
                passes.withLock { $0 += 1 }
                crossed.yield()
            }
            #expect(player.play())
            var next = crossings.makeAsyncIterator()
            _ = await next.next()
            _ = await next.next()
            #expect(player.isPlaying, "the second and last pass ended before the test could seek in it")
            player.currentTime = 0.3
            // What is left is the rest of the last pass from 0.3 s, which never comes back to 0.1 s.
            for await event in events {
                if case .finishedPlaying(let successfully) = event {
                    #expect(successfully)
                    break
                }
            }
            player.removeTimeObserver(observer)
            #expect(passes.withLock { $0 } == 2, "another pass played after the seek")
        }
    }

    @Test func timeObserversFireWhenPlaybackCrossesTheirTimes() async throws {
        try await PulseAudioServer.exclusive { server in
            let player = try player(seconds: 1.2, on: server)
            let periodic = Mutex<[TimeInterval]>([])
            let boundary = Mutex<[TimeInterval]>([])
            _ = player.addPeriodicTimeObserver(forInterval: 0.25) { time in periodic.withLock { $0.append(time) } }
            _ = player.addBoundaryTimeObserver(forTimes: [0.5, 1.0]) { time in boundary.withLock { $0.append(time) } }
            let events = player.events()
            player.play()
            for await event in events { if case .finishedPlaying = event { break } }
            // As AVPlayer's: at the start, at each multiple of the interval, and once more when playback stops at the
            // end (called as the end is delivered, a moment after the event stream has it).
            try await until { periodic.withLock { $0.count } >= 6 }
            let ticks = periodic.withLock { $0 }
            #expect(ticks.count == 6, "at 0, 0.25, 0.5, 0.75 and 1.0 s, and the stop: \(ticks)")
            #expect(ticks.last == player.currentTime, "the stop, where an AudioPlayer stands once finished: \(ticks)")
            let crossings = boundary.withLock { $0 }
            #expect(crossings.count == 2, "\(crossings)")
            for (crossing, time) in zip(crossings, [0.5, 1.0]) {
                #expect(crossing >= time && crossing < time + 0.03, "\(crossing) for \(time)")
            }
        }
    }
}
