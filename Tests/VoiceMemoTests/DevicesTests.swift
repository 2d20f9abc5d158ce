import Foundation
import Glibc
import TestSupport
import Testing

/// `voicememo devices`: the list, and `--watch` reporting cards coming and going (in a card directory of
/// the test's own, through AUDIOIO_SND_DIR) and the process stopped with Ctrl-Z and continued.
@Suite(.timeLimit(.minutes(1)), .tags(.clocked)) struct DevicesTests {
    /// The state letter of process `pid` in /proc (R, S, T for stopped, …).
    static func state(of pid: Int32) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(end, offsetBy: 2)...].first
    }

    @Test func theListNamesTheDevicesAPersonPicksAndAllOfThemWithAll() throws {
        let cli = try CLI()
        let plumbing = ["null", "lavrate", "samplerate", "speexrate", "upmix", "vdownmix"]
        let chosen = try cli.json(try cli.run(["devices", "--json"], with: try ALSATestDevices.environment()))
        for side in ["inputs", "outputs"] {
            let names = try #require(chosen[side] as? [[String: Any]]).compactMap { $0["name"] as? String }
            #expect(names.first == "default" && names.contains("pulse"), "\(names)")
            #expect(Set(names).isDisjoint(with: plumbing), "\(names)")
        }
        let result = try cli.run(["devices", "--json", "--all"], with: try ALSATestDevices.environment())
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let list = try cli.json(result)
        for side in ["inputs", "outputs"] {
            let ports = try #require(list[side] as? [[String: Any]])
            let null = ports.first { $0["name"] as? String == "null" }
            #expect(null?["type"] as? String == "virtual" && (null?["description"] as? String)?.hasPrefix("Discard all samples") == true)
            #expect(ports.contains { $0["name"] as? String == "pulse" && $0["type"] as? String == "soundServer" })
        }
        let text = try cli.run(["devices"], with: try ALSATestDevices.environment()).standardOutput
        #expect(text.hasPrefix("Capture devices:\nNAME") && text.contains("\nPlayback devices:\nNAME"))
        #expect(text.contains("\ndefault ") && text.contains("\npulse ") && text.contains("PulseAudio Sound Server"))
        #expect(!text.contains("\nlavrate ") && text.hasSuffix(" with --all.\n"), "\(text)")
        let everything = try cli.run(["devices", "--all"], with: try ALSATestDevices.environment()).standardOutput
        #expect(plumbing.allSatisfy { everything.contains("\n\($0) ") } && !everything.contains("with --all"), "\(everything)")
    }

    @Test func watchPrintsEachEventAsItHappensInOrder() async throws {
        let cli = try CLI()
        let cards = cli.scratch.file("snd")
        try FileManager.default.createDirectory(at: cards, withIntermediateDirectories: true)
        let watch = try cli.start(["devices", "--watch", "--json"], with: ["AUDIOIO_SND_DIR": cards.path])
        defer { if watch.isRunning { watch.kill() } }
        /// The next event line, as JSON; a missing line fails the test with the step it was waited for.
        func event(_ step: String) throws -> [String: Any]? {
            let line = try #require(watch.nextLine(), "no line for \(step) (running: \(watch.isRunning))")
            return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        #expect(watch.nextLine()?.hasPrefix("{\"inputs\":") == true)

        _ = FileManager.default.createFile(atPath: cards.appendingPathComponent("controlC4").path, contents: nil)
        let added = try event("the card added")
        #expect(added?["event"] as? String == "routeChange" && added?["reason"] as? String == "newDeviceAvailable")
        #expect((added?["device"] as? [String: Any])?["name"] as? String == "hw:4")

        // Ctrl-Z stops it (after the event), fg continues it.
        watch.send(SIGTSTP)
        let began = try event("Ctrl-Z")
        #expect(began?["event"] as? String == "interruptionBegan" && began?["reason"] as? String == "processSuspended")
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.state(of: watch.processIdentifier) != "T", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.state(of: watch.processIdentifier) == "T")
        watch.send(SIGCONT)
        let ended = try event("fg")
        #expect(ended?["event"] as? String == "interruptionEnded" && ended?["shouldResume"] as? Bool == true)

        try FileManager.default.removeItem(at: cards.appendingPathComponent("controlC4"))
        let removed = try event("the card removed")
        #expect(removed?["event"] as? String == "routeChange" && removed?["reason"] as? String == "oldDeviceUnavailable")
        #expect((removed?["device"] as? [String: Any])?["card"] as? Int == 4)

        watch.send(SIGINT)
        let result = watch.finish()
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
    }

    @Test func watchingOnAMachineWithoutSoundCardsSaysSoOnceAndStillReportsInterruptions() async throws {
        let cli = try CLI()
        let missing = cli.scratch.path("nosuch")
        let watch = try cli.start(["devices", "--watch", "--json"], with: ["AUDIOIO_SND_DIR": missing])
        defer { if watch.isRunning { watch.kill() } }
        #expect(watch.nextLine()?.hasPrefix("{\"inputs\":") == true)
        watch.send(SIGTSTP)
        let began = try #require(watch.nextLine(), "no line for Ctrl-Z (running: \(watch.isRunning))")
        #expect(began.contains("\"event\":\"interruptionBegan\""))
        let deadline = ContinuousClock.now + .seconds(5)
        while Self.state(of: watch.processIdentifier) != "T", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.state(of: watch.processIdentifier) == "T")
        watch.send(SIGCONT)
        let ended = try #require(watch.nextLine(), "no line for fg (running: \(watch.isRunning))")
        #expect(ended.contains("\"event\":\"interruptionEnded\""))
        #expect(watch.isRunning)
        watch.send(SIGINT)
        let result = watch.finish()
        #expect(result.status == 0)
        #expect(result.standardError == "voicememo: no sound cards on this machine ('\(missing)' does not exist): "
            + "watching without card and jack events\n")
    }

    @Test func watchingACardDirectoryThatCannotBeReadFailsInOneLine() throws {
        let cli = try CLI()
        // A regular file where the directory should be: inotify refuses it whoever runs the test (root included).
        let notADirectory = cli.scratch.path("notadirectory")
        _ = FileManager.default.createFile(atPath: notADirectory, contents: nil)
        let result = try cli.run(["devices", "--watch"], with: ["AUDIOIO_SND_DIR": notADirectory])
        #expect(result.status == 1)
        #expect(result.standardError == "voicememo: cannot watch '\(notADirectory)' for sound cards: Not a directory; "
            + "check its permissions, or set AUDIOIO_SND_DIR to watch another directory\n")
    }
}
