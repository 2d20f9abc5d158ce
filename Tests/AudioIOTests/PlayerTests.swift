import AudioIO
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// `Player`, `PlayerItem`, `AudioAsset` and `PlayerLooper` as a porter of an AVPlayer app relies on them, one row of
/// the porting table each: rendered offline (or into the test rig's file device) and compared with the files' samples.
@Suite(.timeLimit(.minutes(1))) struct PlayerTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    @Test func anItemLoadsByItselfFromUnknownToReadyAndItsDurationIsIndefiniteUntilThen() async throws {
        let file = try scratch.noise("talk.wav", seconds: 0.75)
        let item = PlayerItem(url: file.url)
        #expect(item.status == .unknown && item.duration.isNaN && item.seekableTimeRanges.isEmpty)
        let events = item.events()
        let player = Player(playerItem: item)
        var seen: [PlayerItem.Event] = []
        for await event in events {
            seen.append(event)
            if case .statusChanged = event { break }
        }
        #expect(seen == [.durationChanged(0.75), .statusChanged(.readyToPlay)])
        #expect(item.status == .readyToPlay && item.duration == 0.75 && item.error == nil)
        #expect(item.loadedTimeRanges == [0..<0.75] && item.seekableTimeRanges == [0..<0.75])
        #expect(item.isPlaybackLikelyToKeepUp && item.isPlaybackBufferFull && !item.isPlaybackBufferEmpty)
        #expect(item.accessLog() == nil, "a file fetches nothing")
        #expect(player.currentItem === item && player.timeControlStatus == .paused)
    }

    @Test func anItemThatCannotBeReadFailsWithTheReasonInItsErrorLog() async throws {
        let renderer = try OfflineRenderer()
        let item = PlayerItem(url: scratch.file("missing.wav"))
        let player = Player(playerItem: item)
        player.currentDevice = renderer.device
        try await until { item.status != .unknown }
        guard case .failed(.file(let error)) = item.status else { Issue.record("\(item.status)"); return }
        #expect(item.error == .file(error))
        let log = try #require(item.errorLog())
        #expect(log.events.count == 1 && log.events[0].errorDomain == "file" && log.events[0].errorStatusCode == -1)
        // Playing it fails at once, and says why.
        let events = player.events()
        #expect(!player.play())
        for await event in events {
            if case .itemDidFailToPlayToEnd(let failed, _) = event { #expect(failed === item); break }
        }
    }

    /// The porting article's loop waits on the item's own events: when the player cannot open its device, the item
    /// says so, and that loop ends instead of waiting for good.
    @Test func anItemWhosePlayerCannotOpenItsDeviceIsToldAndItsErrorLogSaysWhy() async throws {
        let file = try scratch.noise("talk.wav", seconds: 0.75)
        let item = PlayerItem(url: file.url)
        let events = item.events()
        let player = Player(playerItem: item)
        player.currentDevice = "nosuchdevice"
        var seen: [PlayerItem.Event] = []
        for await event in events {
            seen.append(event)
            if case .statusChanged(.readyToPlay) = event { #expect(!player.play()) }
            if case .failedToPlayToEnd = event { break }
        }
        guard case .failedToPlayToEnd(.device(let error)) = seen.last else { Issue.record("\(seen)"); return }
        #expect(player.status == .failed(.device(error)) && error.device == "nosuchdevice", "\(player.status)")
        #expect(seen.suffix(2).first == .newErrorLogEntry)
        let log = try #require(item.errorLog())
        #expect(log.events.count == 1 && log.events[0].errorDomain == "device" && log.events[0].errorComment == "\(error)")
    }

    @Test func anAssetLoadsItsPropertiesAsynchronously() async throws {
        let file = scratch.file("tagged.wav")
        try Sox.synth(to: file.path, rate: 44100, channels: 1, seconds: 0.5, "sine 440")
        let asset = AudioAsset(url: file)
        let (duration, channels, rate, playable) = try await asset.load(.duration, .channelCount, .sampleRate, .isPlayable)
        #expect(duration == 0.5 && channels == 1 && rate == 44100 && playable)
        // An item of an asset already loaded is ready at once.
        #expect(PlayerItem(asset: asset).status == .readyToPlay)
        await #expect(throws: AudioFileError.self) { try await AudioAsset(url: scratch.file("none.wav")).load(.duration) }
    }

    @Test func playReturnsAtOnceWhileTheHeaderIsStillOnItsWayAndTheReasonIsToldUntilItPlays() async throws {
        let talk = try scratch.noise("talk.wav", seconds: 1)
        // 16 bytes a second from the first byte: the header alone takes seconds.
        let server = try HTTPServer(rate: "16", rateAfter: "0")
        defer { server.kill() }
        try server.put(talk.url, as: "talk.wav")
        let renderer = try OfflineRenderer()
        let player = Player(url: server.url("talk.wav"))
        player.currentDevice = renderer.device
        let started = ContinuousClock.now
        #expect(player.play())
        let took = ContinuousClock.now - started
        #expect(took < .milliseconds(5), "play() took \(took)")
        let item = try #require(player.currentItem)
        #expect(item.status == .unknown && item.duration.isNaN, "the header is still on its way")
        #expect(player.isPlaying && player.timeControlStatus == .waitingToPlayAtSpecifiedRate(.evaluatingBufferingRate))
        #expect(player.reasonForWaitingToPlay == .evaluatingBufferingRate && item.isPlaybackBufferEmpty)
        player.pause()
        #expect(player.timeControlStatus == .paused && player.reasonForWaitingToPlay == nil)
    }

    @Test func aPlayerWithoutAnItemWaitsForOneAndPlaysItOnceGiven() async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("a.wav", seconds: 0.2)
        let player = Player()
        player.currentDevice = renderer.device
        #expect(player.play())
        #expect(player.reasonForWaitingToPlay == .noItemToPlay)
        let item = try await readyItems([file.url])[0]
        player.replaceCurrentItem(with: item)
        #expect(player.timeControlStatus == .playing && player.currentItem === item)
        #expect(firstDifference(renderer.render(frameCount: 4800), Array(file.samples.prefix(9600))) == nil)
    }

    @Test func aRateOtherThanZeroPlaysZeroPausesAndNoneBelowZeroChangesAnything() async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("a.wav", seconds: 1)
        let player = Player(playerItem: try await readyItems([file.url])[0])
        player.currentDevice = renderer.device
        player.rate = 1.5
        #expect(player.isPlaying && player.rate == 1.5, "a rate other than 0 plays, as AVPlayer's does")
        player.rate = 0
        #expect(!player.isPlaying && player.timeControlStatus == .paused && player.rate == 1.5)
        player.rate = -1
        #expect(!player.isPlaying && player.rate == 1.5, "nothing plays backwards: a negative rate changes nothing")
        player.defaultRate = 0.5
        #expect(!player.isPlaying, "setting the default rate does not play")
        player.play()
        #expect(player.isPlaying && player.rate == 0.5, "play() plays at the default rate")
    }

    @Test(arguments: [Player.ActionAtItemEnd.pause, .none, .advance])
    func whatThePlayerDoesAtTheItemsEnd(action: Player.ActionAtItemEnd) async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("a.wav", seconds: 0.2)
        let item = try await readyItems([file.url])[0]
        let player = Player(playerItem: item)
        player.currentDevice = renderer.device
        player.actionAtItemEnd = action
        let log = EventLog(player.events())
        let itemLog = EventLog(item.events())
        #expect(player.play())
        #expect(firstDifference(try renderer.renderAll(in: scratch), file.samples) == nil)
        try await until { log.events.contains(.itemDidPlayToEnd(item)) && itemLog.events.contains(.didPlayToEnd) }
        switch action {
        case .pause:
            try await until { !player.isPlaying }
            #expect(player.currentItem === item && abs(player.currentTime - 0.2) < 1e-9, "paused at the item's end")
        case .none:
            #expect(player.isPlaying && player.currentItem === item, "the rate as it was, at the end")
            player.seek(to: 0.1)
            #expect(firstDifference(renderer.render(frameCount: 2400), Array(file.samples[9600..<14400])) == nil, "a seek back plays on")
        case .advance:
            try await until { player.currentItem == nil && !player.isPlaying }
        }
    }

    @Test func aPeriodicObserverHearsSeeksAndPausesOnItsQueue() async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("a.wav", seconds: 1)
        let player = Player(playerItem: try await readyItems([file.url])[0])
        player.currentDevice = renderer.device
        let queue = DispatchQueue(label: "observer")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let calls = Mutex<[(time: TimeInterval, onQueue: Bool)]>([])
        let observer = player.addPeriodicTimeObserver(forInterval: 10, queue: queue) { time in
            calls.withLock { $0.append((time, DispatchQueue.getSpecific(key: key) == true)) }
        }
        defer { player.removeTimeObserver(observer) }
        // Paused, a seek is a jump: the block hears it at once, on its queue.
        player.seek(to: 0.25)
        try await until { calls.withLock { $0.count } == 1 }
        player.play()
        _ = renderer.render(frameCount: 4800)
        try await until { calls.withLock { $0.count } == 2 }
        player.pause()
        try await until { calls.withLock { $0.count } == 3 }
        let seen = calls.withLock { $0 }
        #expect(seen.allSatisfy { $0.onQueue })
        #expect(seen[0].time == 0.25 && abs(seen[1].time - 0.25) < 0.01 && abs(seen[2].time - 0.35) < 0.01, "\(seen)")
    }

    @Test func aSeekSupersededByAnotherEndsUnfinished() async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("a.wav", seconds: 1)
        let item = try await readyItems([file.url])[0]
        let player = Player(playerItem: item)
        player.currentDevice = renderer.device
        #expect(player.play())
        let finished = Mutex<[String]>([])
        item.seek(to: 0.3) { done in finished.withLock { $0.append("first \(done)") } }
        player.seek(to: 0.6) { done in finished.withLock { $0.append("second \(done)") } }
        _ = renderer.render(frameCount: 4800)
        try await until { finished.withLock { $0.count } == 2 }
        #expect(finished.withLock { $0 } == ["first false", "second true"])
        #expect(abs(item.currentTime() - 0.7) < 0.01)
        // An item that is not its player's current one seeks nowhere.
        let other = PlayerItem(url: file.url)
        let answer = Mutex<Bool?>(nil)
        other.seek(to: 0.1) { done in answer.withLock { $0 = done } }
        #expect(answer.withLock { $0 } == false)
    }

    @Test func aLooperPlaysARangeOfItsItemAgainWithoutAGapUntilLoopingIsDisabled() async throws {
        let renderer = try OfflineRenderer()
        let file = try scratch.noise("drone.wav", seconds: 0.5)
        let player = QueuePlayer(items: [])
        player.currentDevice = renderer.device
        let template = try await readyItems([file.url])[0]
        let looper = PlayerLooper(player: player, templateItem: template, timeRange: 0.1..<0.2)
        #expect(looper.status == .ready && player.items() == [template])
        #expect(player.play())
        let pass = Array(file.samples[9600..<19200])
        let half = pass.count / 2
        #expect(firstDifference(renderer.render(frameCount: 3 * 4800 + 2400), pass + pass + pass + pass.prefix(half)) == nil,
                "three passes and a half of the range, seamless")
        try await until { looper.loopCount == 3 }
        looper.disableLooping()
        #expect(looper.status == .cancelled)
        // The pass playing plays to its end, and nothing after it.
        #expect(firstDifference(try renderer.renderAll(in: scratch), Array(pass.suffix(pass.count - half))) == nil)
        try await until { !player.isPlaying }
        #expect(looper.loopCount == 4)
    }
}
