import AudioIO
import Foundation
import TestSupport
import Testing

/// A player on ALSA's `file` PCM (built into alsa-lib's configuration, with the `null` PCM behind it):
/// everything played lands in a raw file, 32-bit little-endian stereo at 48 kHz, the format the engine
/// negotiates with `null`. The device is unclocked, so playback runs as fast as the decoder.
struct PlaybackRig {
    let scratch: ScratchDirectory
    let output: URL

    init() throws {
        // alsa-lib reads its configuration once per process: the test devices must be in it from the start.
        try ALSATestDevices.install()
        scratch = try ScratchDirectory()
        output = scratch.file("device.raw")
    }

    /// The ALSA PCM name that writes to ``output``.
    var device: String { "file:'\(output.path)',raw" }

    /// A player of `file` on this rig's device.
    func player(_ file: URL) throws -> AudioPlayer {
        let player = try AudioPlayer(contentsOf: file)
        player.currentDevice = device
        return player
    }

    /// A `Player` (`kind` "Player") or an `AudioPlayer` (`kind` "AudioPlayer") of `url` on the rig's device: what a
    /// test of both kinds plays.
    func player(_ kind: String, of url: URL) throws -> BasePlayer {
        if kind == "Player" {
            let queue = Player(url: url)
            queue.currentDevice = device
            return queue
        }
        return try player(url)
    }

    /// Plays every player (scheduled by `start`) to its end and returns their finish flags.
    @discardableResult
    func playToEnd(_ players: [AudioPlayer], start: ([AudioPlayer]) -> Void = { $0.forEach { $0.play() } }) async throws -> [Bool] {
        let streams = players.map { $0.events() }
        start(players)
        var results: [Bool] = []
        for stream in streams {
            for await event in stream {
                if case .finishedPlaying(let successfully) = event {
                    results.append(successfully)
                    break
                }
            }
        }
        return results
    }

    /// The left and right samples that reached the device, once at least `frames` frames have.
    func deviceSamples(atLeast frames: Int) async throws -> (left: [Int32], right: [Int32]) {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let bytes = (try? Data(contentsOf: output)) ?? Data()
            if bytes.count >= frames * 8 {
                return Self.split(bytes.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) })
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RigTimeout(description: "fewer than \(frames) frames reached \(output.path) in 10 s")
    }
}

extension PlaybackRig {
    /// What the device should receive for `file` played at unity: its samples as libsndfile decodes them,
    /// mono copied to both channels, in the engine's 32-bit device format.
    func expectedSamples(of file: URL) throws -> (left: [Int32], right: [Int32]) {
        let audio = try AudioFile(forReading: file)
        let samples = try audio.read(frameCount: Int(audio.frameCount)).map { value -> Int32 in
            value >= 1 ? .max : value <= -1 ? .min : Int32(value * 2_147_483_648)
        }
        return audio.channelCount == 1 ? (samples, samples) : Self.split(samples)
    }

    /// A mono WAV holding `value` in every sample.
    func writeConstant(_ value: Float, seconds: Double, to url: URL) throws {
        let writer = try AudioFileWriter(url: url, settings: AudioSettings(bitDepth: .float32))
        try [Float](repeating: value, count: Int(seconds * 48000)).withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    static func split(_ interleaved: [Int32]) -> (left: [Int32], right: [Int32]) {
        (stride(from: 0, to: interleaved.count - 1, by: 2).map { interleaved[$0] },
         stride(from: 1, to: interleaved.count, by: 2).map { interleaved[$0] })
    }
}

/// The device did not receive what a test waited for.
struct RigTimeout: Error, CustomStringConvertible {
    let description: String
}

/// A queue of one stereo tone of `seconds`, made in `scratch`, `count` times over (items of their own), to play on
/// `device` (an unclocked device plays a tone of seconds in milliseconds).
func toneQueue(_ count: Int, seconds: Double, in scratch: ScratchDirectory, on device: String) async throws -> QueuePlayer {
    let tone = scratch.file("tone-\(seconds).wav")
    try Sox.synth(to: tone.path, rate: 48000, channels: 2, seconds: seconds, "sine 440")
    let queue = QueuePlayer(items: try await readyItems(Array(repeating: tone, count: count)))
    queue.currentDevice = device
    return queue
}

/// Items of `urls`, each loaded (its asset's properties), so that they are ready to play from the start: a queue of
/// them plays as soon as it is asked to.
func readyItems(_ urls: [URL]) async throws -> [PlayerItem] {
    var items: [PlayerItem] = []
    for url in urls {
        let asset = AudioAsset(url: url)
        _ = try await asset.load(.duration)
        items.append(PlayerItem(asset: asset))
    }
    return items
}

/// Polls `condition` every 20 ms until it holds; throws after 10 s. Rather than sleep for what a test waits
/// for, which a busy machine may hold back for seconds.
func until(_ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { throw RigTimeout(description: "waited 10 s in vain") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// The rig's device and its reading of it, checked with alsa-utils' aplay instead of the library.
@Suite struct PlaybackRigTests {
    @Test func theFileDeviceHoldsExactlyWhatIsPlayedToIt() async throws {
        let rig = try PlaybackRig()
        let tone = rig.scratch.file("tone.wav")
        try Sox.synth(to: tone.path, rate: 48000, channels: 2, seconds: 0.2, "sine 440 sine 660")
        // In the device's own format (signed 32-bit stereo at 48 kHz), so that alsa-lib converts nothing.
        let raw = rig.scratch.path("tone.raw")
        try Tool.output("sox", [tone.path, "-t", "raw", "-e", "signed-integer", "-b", "32", "-L", raw])
        try Tool.output("aplay", ["-q", "-D", rig.device, "-t", "raw", "-f", "S32_LE", "-r", "48000", "-c", "2", raw])
        let expected = try rig.expectedSamples(of: tone)
        let device = try await rig.deviceSamples(atLeast: expected.left.count)
        #expect(firstDifference(Array(device.left.prefix(expected.left.count)), expected.left) == nil)
        #expect(firstDifference(Array(device.right.prefix(expected.right.count)), expected.right) == nil)
        #expect(PlaybackRig.split([1, -1, 2, -2]) == ([1, 2], [-1, -2]))
    }
}

/// What the tests of addresses serve and compare with: 30 s of white noise, 16 kHz mono 16-bit (960 KB, 32 KB a
/// second), in a scratch directory of its own as `talk.wav`, its samples, and a cache of its own.
struct NoiseTalk {
    let scratch: ScratchDirectory
    let cache: RemoteCache
    let talk: URL
    /// The file's samples, which what is downloaded of it must match.
    let expected: [Float]

    init() throws {
        scratch = try ScratchDirectory()
        cache = RemoteCache(directory: scratch.file("cache"))
        talk = scratch.file("talk.wav")
        try Sox.synth(to: talk.path, rate: 16000, channels: 1, seconds: 30, "whitenoise")
        let file = try AudioFile(forReading: talk)
        expected = try file.read(frameCount: Int(file.frameCount))
    }
}
