import Foundation
import TestSupport
import Testing

/// `voicememo record` as a person runs it: from the test microphone (exact content, unclocked) or from a
/// PulseAudio null sink's monitor (a real clock), stopped by its duration, by Ctrl-C or SIGTERM, killed,
/// or cut short by a full disk.
@Suite(.timeLimit(.minutes(3)), .tags(.clocked)) struct RecordTests {
    /// A microphone that captures `seconds` of sox's `synth effect` (mono, 48 kHz), and its samples.
    func microphone(_ cli: CLI, seconds: Double, _ effect: String) throws -> (device: String, samples: [Int32]) {
        let source = cli.scratch.path("mic.wav")
        try Sox.synth(to: source, rate: 48000, channels: 1, seconds: seconds, effect)
        return (try ALSATestDevices.microphone(playing: source), try Sox.samples(of: source))
    }

    /// The memos `list --json` prints.
    func memos(_ cli: CLI) throws -> [[String: Any]] {
        let data = Data(try cli.run("list", "--json").standardOutput.utf8)
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }

    /// A duration in seconds, or as a clock reads (as every time option takes one).
    @Test(arguments: ["1.5", "0:01.5"])
    func aRecordWithADurationIsACompleteMemoOfExactlyTheMicrophonesSamples(duration: String) throws {
        let cli = try CLI()
        let (device, samples) = try microphone(cli, seconds: 2, "whitenoise")
        let result = try cli.run("record", "--device", device, "--duration", duration, "--title", "Standup", "--json")
        #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
        let memo = try cli.json(result)
        #expect(memo["title"] as? String == "Standup" && memo["state"] as? String == "complete")
        #expect(memo["duration"] as? Double == 1.5 && memo["format"] as? String == "wav" && memo["channels"] as? Int == 1)
        let file = try #require(memo["file"] as? String)
        let recorded = try Sox.samples(of: file)
        #expect(recorded.count == 72000 && recorded == Array(samples.prefix(72000)))
        let sox = try Sox.levels(of: file, channels: 1)
        let peak = try #require((memo["peakDBFS"] as? [Double])?.first)
        let average = try #require((memo["averageDBFS"] as? [Double])?.first)
        #expect(abs(peak - sox.peak[0]) < 0.1 && abs(average - sox.rms[0]) < 0.1)
        #expect(try memos(cli).map { $0["id"] as? String } == [memo["id"] as? String])
    }

    @Test func presetsAndFormatsAreHonoured() throws {
        let cli = try CLI()
        let source = cli.scratch.path("tone.wav")
        try Sox.synth(to: source, rate: 44100, channels: 2, bits: 24, seconds: 2, "sine 440")
        // Each microphone gives what its recording asks for: 24-bit stereo at 44.1 kHz, then float mono for Opus.
        let device = try ALSATestDevices.microphone(playing: source, format: .int24, rate: 44100, channels: 2)
        let caf = try cli.json(try cli.run("record", "--device", device, "--duration", "1", "--format", "caf",
                                           "--sample-rate", "44100", "--channels", "2", "--bit-depth", "24", "--json"))
        let file = try #require(caf["file"] as? String)
        let info = try Sox.info(file)
        #expect(info.rate == 44100 && info.channels == 2 && info.bits == 24 && info.frames == 44100)
        #expect(try Sox.samples(of: file) == Array(try Sox.samples(of: source).prefix(88200)))
        let voiceMicrophone = try ALSATestDevices.microphone(playing: source, format: .float32, channels: 1)
        let voice = try cli.json(try cli.run("record", "--device", voiceMicrophone, "--duration", "0.5", "--preset", "voice", "--json"))
        #expect(voice["format"] as? String == "opus")
        #expect(try Tool.run("opusinfo", [try #require(voice["file"] as? String)]).status == 0)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func ctrlCAndSIGTERMFinishTheFileAndTheMemo(signal: Int32) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let recording = try cli.start(["record", "--device", "pulse", "--title", "Stopped"], with: try server.environment)
            #expect(recording.nextLine()?.hasPrefix("Recording “Stopped” as ") == true)
            try await Task.sleep(for: .milliseconds(700))
            recording.send(signal)
            let result = recording.finish()
            #expect(result.status == 0 && result.standardError.isEmpty, "\(result.standardError)")
            #expect(result.standardOutput.contains("Recorded “Stopped” as "))
            let memo = try #require(try memos(cli).first)
            #expect(memo["state"] as? String == "complete")
            let duration = try #require(memo["duration"] as? Double)
            #expect(duration > 0.5, "\(duration)")
            #expect(abs(try Double(Sox.info(try #require(memo["file"] as? String)).frames) / 48000 - duration) < 0.001)
        }
    }

    /// The seconds a plain level line says were captured ("0:02.0  peak …").
    static func capturedSeconds(_ line: String) -> Double? {
        let time = line.prefix { $0 != " " }.split(separator: ":")
        guard time.count == 2, let minutes = Double(time[0]), let seconds = Double(time[1]) else { return nil }
        return minutes * 60 + seconds
    }

    /// What reached the disk of a recording killed at any moment: all but its last half second, in every format.
    @Test(arguments: ["wav", "caf", "opus"])
    func aKilledRecordingKeepsAllButItsLastHalfSecond(format: String) async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let recording = try cli.start(["record", "--device", "pulse", "--format", format, "--title", "Killed"], with: try server.environment)
            #expect(recording.nextLine()?.hasPrefix("Recording “Killed” as ") == true)
            // A plain line a second says how much was captured: killed right after the one past 2 s.
            var captured = 0.0
            while captured < 2, let line = recording.nextLine() { captured = Self.capturedSeconds(line) ?? captured }
            #expect(recording.isRunning)
            recording.kill()

            let memo = try #require(try memos(cli).first)
            #expect(memo["title"] as? String == "Killed" && memo["state"] as? String == "recovered")
            let duration = try #require(memo["duration"] as? Double)
            // The line is rounded to a tenth; the kill lands a moment after it, with a little more captured.
            #expect(duration >= captured - 0.55 && duration <= captured + 0.5, "\(duration) s kept of \(captured) s captured")
            let file = try #require(memo["file"] as? String)
            if format == "opus" {
                let decoded = cli.scratch.path("decoded.wav")
                try Tool.output("opusdec", ["--quiet", "--rate", "48000", file, decoded])
                #expect(try Sox.info(decoded).frames == Int((duration * 48000).rounded()))
                let opusinfo = try Tool.run("opusinfo", [file])
                #expect(opusinfo.status == 0 && !opusinfo.standardOutput.contains("WARNING"), "\(opusinfo.standardOutput)")
            } else {
                #expect(try Sox.info(file).frames == Int((duration * 48000).rounded()))
            }
        }
    }

    /// What a power cut can take: the file is synced to the disk at least every second while recording.
    @Test func aRecordingIsSyncedToTheDiskEverySecond() async throws {
        try await PulseAudioServer.exclusive { server in
            let cli = try CLI()
            let trace = cli.scratch.path("trace")
            var environment = try server.environment.merging(cli.environment) { $1 }
            environment["VOICEMEMO"] = CLI.binary
            let result = try Tool.run(
                "strace", ["-f", "-qq", "-e", "trace=fsync,fdatasync", "-e", "signal=none", "-ttt", "-o", trace,
                           CLI.binary, "record", "--device", "pulse", "--duration", "4.5", "--format", "opus", "--json"],
                environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            // Each line: "<pid> <seconds since the epoch> fsync(<fd>) = 0".
            let syncs = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> Double? in
                let words = line.split(separator: " ")
                return words.count > 2 && words[2].hasPrefix("fsync(") ? Double(words[1]) : nil
            }
            // The memo's entry is synced when the recording begins and ends; in between, the audio file every second.
            let gaps = zip(syncs, syncs.dropFirst()).map { $1 - $0 }
            #expect(syncs.count >= 5 && gaps.allSatisfy { $0 < 1.3 }, "syncs \(syncs), gaps \(gaps)")
        }
    }

    @Test func aFullDiskStopsTheRecordingInOneLineAndKeepsWhatWasWritten() throws {
        let cli = try CLI()
        let (device, samples) = try microphone(cli, seconds: 6, "whitenoise")
        // Files of this process may grow to 100 KiB: about a second of 16-bit mono at 48 kHz. alsa-lib's
        // PulseAudio hook loads libpulse, whose shared memory pool would not fit: it is turned off.
        let clientConfig = cli.scratch.path("client.conf")
        try "enable-shm = no\n".write(toFile: clientConfig, atomically: true, encoding: .utf8)
        var environment = cli.environment
        environment["VOICEMEMO"] = CLI.binary
        environment["PULSE_CLIENTCONFIG"] = clientConfig
        let result = try Tool.run(
            "bash", ["-c", #"trap '' XFSZ; ulimit -f 100; exec "$VOICEMEMO" record --device "$0" --duration 5 --title Full"#, device],
            environment: environment)
        #expect(result.status == 1)
        // One line says what failed; a busy machine may also have made the input overrun, which is said apart.
        let lines = result.standardError.split(separator: "\n").filter { !$0.hasPrefix("voicememo: warning: the input overran") }
        #expect(lines.count == 1 && lines[0].hasPrefix("voicememo: writing '") && lines[0].contains("File too large"), "\(result.standardError)")
        let memo = try #require(try memos(cli).first)
        let duration = try #require(memo["duration"] as? Double)
        #expect(duration > 0.5 && duration < 1.1)
        let recorded = try Sox.samples(of: try #require(memo["file"] as? String))
        #expect(recorded.count == Int((duration * 48000).rounded()) && recorded == Array(samples.prefix(recorded.count)))
    }

    @Test func wrongOptionsAndDevicesFailInOneLineAndLeaveNoMemo() throws {
        let cli = try CLI()
        for (arguments, status) in [(["--duration", "0"], Int32(2)), (["--preset", "nosuch"], 2), (["--bit-depth", "12"], 2),
                                    (["--device", "nosuchdevice", "--duration", "1"], 1)] {
            let result = try cli.run(["record"] + arguments, with: [:])
            #expect(result.status == status, "\(arguments)")
            #expect(result.standardOutput.isEmpty && !result.standardError.isEmpty, "\(arguments)")
            if status == 1 {
                #expect(result.standardError == "voicememo: cannot open audio device 'nosuchdevice': there is no such device; pick another with --device ('voicememo devices' lists them)\n")
            }
        }
        #expect(try memos(cli).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: cli.home.path).filter { !$0.hasPrefix(".") }
        #expect(files.isEmpty)
    }
}
