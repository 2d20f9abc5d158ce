import Foundation
import TestSupport
import Testing

/// `voicememo meter` off the terminal (plain lines, JSON lines) on a PulseAudio null sink's monitor; on a
/// terminal, see ``TerminalDisplayTests``.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct MeterTests {
    @Test func theMeterPrintsTheLevelsOfWhatPlaysAsJSONLinesOrPlainLines() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let silent = try cli.run(["meter", "--device", "pulse", "--duration", "0.3"], with: try server.environment)
            #expect(silent.status == 0 && silent.standardError.isEmpty)
            let lines = silent.standardOutput.split(separator: "\n")
            // A reading every 0.1 s; the first one's time depends on when the stream got going.
            #expect((3...4).contains(lines.count), "\(silent.standardOutput)")
            #expect(lines.allSatisfy { $0.hasPrefix("0:00.") && $0.hasSuffix("  peak -inf, -inf dBFS  average -inf, -inf dBFS") }, "\(silent.standardOutput)")

            let sine = try server.playSine(frequency: 1000)
            defer { sine.stop() }
            let result = try cli.run(["meter", "--device", "pulse", "--duration", "1", "--json"], with: try server.environment)
            #expect(result.status == 0 && result.standardError.isEmpty)
            let readings = try result.standardOutput.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect((9...11).contains(readings.count))
            #expect(Set(readings.flatMap(\.keys)) == ["time", "peakDBFS", "averageDBFS"])
            // The tone plays before the meter starts; a busy machine may hold the meter back so that a reading
            // finds nothing new (silence) and the next one more: most readings are of the whole tone.
            let inTone = readings.filter { reading in
                let peaks = reading["peakDBFS"] as? [Double] ?? []
                let averages = reading["averageDBFS"] as? [Double] ?? []
                return peaks.count == 2 && peaks.allSatisfy { abs($0 + 6.02) < 0.1 } && averages.allSatisfy { abs($0 + 9.03) < 0.1 }
            }
            #expect(inTone.count * 2 > readings.count, "\(result.standardOutput)")
            let times = readings.compactMap { $0["time"] as? Double }
            #expect(times == times.sorted() && times.count == readings.count && times.last ?? 0 >= 1)
        }
    }

    @Test(arguments: ["q", "\r"]) func qOrEnterStopsTheMeterOnATerminal(key: String) async throws {
        try await PulseAudioServer.exclusive { server in
            let meter = try PseudoTerminal(CLI.binary, ["meter", "--device", "pulse"], environment: try server.environment, columns: 80)
            // Drawn for half a second of input, and still running: nothing but the key ends it.
            #expect(meter.read(until: { $0.contains("METER  pulse  0:00.5") }, timeout: 10), "\(meter.screen.suffix(600))")
            #expect(meter.waitForExit(timeout: 0.3) == nil)
            meter.type(key)
            #expect(meter.waitForExit(timeout: 5) == 0, "\(meter.screen.suffix(600))")
            // The terminal is put back as it was.
            #expect(meter.localModes == meter.initialModes)
        }
    }

    @Test func theFirstReadingIsOfTheFirstInputEvenWhenTheServerTakesASecondToSendIt() async throws {
        // A server of its own, whose idle sink makes a new stream wait up to 2 s for its first frames.
        let server = try PulseAudioServer()
        defer { server.stop() }
        try server.letSinkClockIdle()
        let sine = try server.playSine(frequency: 1000)
        defer { sine.stop() }
        let cli = try CLI()
        let started = Date()
        let result = try cli.run(["meter", "--device", "pulse", "--duration", "0.5", "--json"], with: try server.environment)
        let wall = Date().timeIntervalSince(started)
        #expect(result.status == 0 && result.standardError.isEmpty)
        let readings = try result.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        // Every reading, the first too, is of the tone: none stands for input that had not come yet.
        #expect((4...7).contains(readings.count), "\(result.standardOutput)")
        #expect(readings.allSatisfy { ($0["peakDBFS"] as? [Double])?.allSatisfy { abs($0 + 6.02) < 0.1 } == true }, "\(result.standardOutput)")
        // Times are seconds of input, from the first frame on; the input came late (what this test is about).
        let times = readings.compactMap { $0["time"] as? Double }
        #expect(times.first.map { $0 > 0 && $0 < 0.2 } == true && times.last.map { $0 >= 0.5 } == true, "\(times)")
        #expect(wall > 0.8, "the server sent the first frames \(wall) s after the meter started")
    }
}
