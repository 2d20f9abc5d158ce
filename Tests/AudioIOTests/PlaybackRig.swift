import AudioIO
import Foundation
import TestSupport

/// A player on ALSA's `file` PCM (built into alsa-lib's configuration, with the `null` PCM behind it):
/// everything played lands in a raw file, 32-bit little-endian stereo at 48 kHz, the format the engine
/// negotiates with `null`. The device is unclocked, so playback runs as fast as the decoder.
struct PlaybackRig {
    let scratch: ScratchDirectory
    let output: URL

    init() throws {
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

    /// The interleaved stereo samples that reached the device, once `frames` of them have, as ±1 floats.
    func deviceSamples(atLeast frames: Int) async throws -> [[Int32]] {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let bytes = (try? Data(contentsOf: output)) ?? Data()
            if bytes.count >= frames * 8 {
                let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
                return [stride(from: 0, to: samples.count - 1, by: 2).map { samples[$0] },
                        stride(from: 1, to: samples.count, by: 2).map { samples[$0] }]
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw RigTimeout(description: "fewer than \(frames) frames reached \(output.path) in 10 s")
    }
}

/// The device did not receive what a test waited for.
struct RigTimeout: Error, CustomStringConvertible {
    let description: String
}
