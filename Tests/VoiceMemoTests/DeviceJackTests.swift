import Foundation
import Glibc
import TestSupport
import Testing

/// What `voicememo` says when a jack is plugged or unplugged: sound cards of the test's own
/// (``TestSoundCard``) in a card directory it watches through AUDIOIO_SND_DIR.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct DeviceJackTests {
    let cli: CLI
    let cards: URL
    let environment: [String: String]

    init() throws {
        cli = try CLI()
        cards = cli.scratch.file("snd")
        try FileManager.default.createDirectory(at: cards, withIntermediateDirectories: true)
        environment = try ALSATestDevices.environment().merging(["AUDIOIO_SND_DIR": cards.path]) { $1 }
    }

    /// Whether `condition` holds within 30 s (as long as ``RunningTool/nextLine(timeout:)`` waits), polled
    /// every 10 ms and once more at the end: a busy machine may not wake the test before then.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Whether process `pid` watches a card's jacks: it has a thread named "audio-jacks", which starts once
    /// the card's control device is subscribed to.
    static func watchesJacks(_ pid: Int32) async throws -> Bool {
        try await eventually {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return threads.contains { (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8)) == "audio-jacks\n" }
        }
    }

    /// Whether process `pid` catches SIGINT (its handler is installed: a `devices --watch` that prints
    /// events may not have it yet, and ignores SIGINT until then).
    static func catchesSIGINT(_ pid: Int32) async throws -> Bool {
        try await eventually {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            return caught & (1 << (UInt64(SIGINT) - 1)) != 0
        }
    }

    @Test func devicesWatchPrintsALinePerJackEvent() async throws {
        var card = try TestSoundCard(index: 31, in: cards, jacks: ["Headphone Jack": true, "Mic Jack": false])
        defer { try? card.remove() }
        let watch = try cli.start(["devices", "--watch", "--json"], with: environment)
        defer { if watch.isRunning { watch.kill() } }
        #expect(watch.nextLine()?.hasPrefix("{\"inputs\":") == true)
        #expect(try await Self.watchesJacks(watch.processIdentifier))
        /// The next event line, as JSON; a missing line fails the test with the step it was waited for.
        func event(_ step: String) throws -> [String: Any]? {
            let line = try #require(watch.nextLine(), "no line for \(step) (running: \(watch.isRunning))")
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }

        try card.set("Headphone Jack", plugged: false)
        let unplugged = try event("the headphones unplugged")
        #expect(unplugged?["event"] as? String == "routeChange" && unplugged?["reason"] as? String == "oldDeviceUnavailable")
        let headphones = unplugged?["device"] as? [String: Any]
        #expect(headphones?["name"] as? String == "hw:31" && headphones?["card"] as? Int == 31)
        #expect(headphones?["type"] as? String == "headphones" && headphones?["description"] as? String == "Test Jacks 31: Headphone Jack")

        try card.set("Mic Jack", plugged: true)
        let plugged = try event("the microphone plugged in")
        #expect(plugged?["event"] as? String == "routeChange" && plugged?["reason"] as? String == "newDeviceAvailable")
        let microphone = plugged?["device"] as? [String: Any]
        #expect(microphone?["type"] as? String == "headsetMic" && microphone?["description"] as? String == "Test Jacks 31: Mic Jack")

        #expect(try await Self.catchesSIGINT(watch.processIdentifier))
        watch.send(SIGINT)
        let result = watch.finish()
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        #expect(result.standardOutput.isEmpty, "one line per event, nothing more: \(result.standardOutput)")
    }

    @Test func playInATerminalSaysTheHeadphonesWereUnpluggedAndWaitsForSpace() async throws {
        var card = try TestSoundCard(index: 32, in: cards, jacks: ["Headphone Jack": true])
        defer { try? card.remove() }
        _ = try cli.importTone(title: "Tone", seconds: 0.5)
        // Looping on the card's (unclocked) device until the user quits.
        let play = try PseudoTerminal(
            CLI.binary, ["play", "Tone", "--loops", "-1", "--no-meter", "--device", card.device],
            environment: cli.environment.merging(environment) { $1 })
        #expect(try await Self.watchesJacks(play.pid))

        try card.set("Headphone Jack", plugged: false)
        #expect(play.read(until: { $0.contains("headphones unplugged — paused, press space to resume") }, timeout: 10),
                "\(play.screen.suffix(1000))")
        play.type("q")
        #expect(play.waitForExit(timeout: 10) == 0)
        #expect(play.localModes == play.initialModes)
    }
}
