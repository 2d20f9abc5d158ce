import Foundation
import Glibc

/// A `testbusy` device (see ``ALSATestDevices``) and its lock, held by this process as another program would hold a
/// sound card: while ``isHeld``, opening ``name`` fails with `EBUSY`, here and in the processes the test starts.
public final class HeldDevice {
    /// The PCM name, `testbusy:'LOCK'`.
    public let name: String
    private let lock: Int32

    /// A device in `directory`, held from the start unless not `held`.
    public init(in directory: ScratchDirectory, held: Bool = true) throws {
        try ALSATestDevices.install()
        let path = directory.path("device.lock")
        lockPath = path
        name = "testbusy:'\(path)'"
        takenPath = path + ".taken"
        lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw SpawnFailure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        isHeld = held
        guard !held || flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw SpawnFailure(description: "cannot lock \(path)") }
    }

    /// Whether the device is held: lets it go, or takes it again (failing while another opener has it).
    public var isHeld = true {
        didSet { _ = flock(lock, isHeld ? LOCK_EX | LOCK_NB : LOCK_UN) }
    }

    /// Whether the device is taken away from the stream running on it (the `.taken` file beside the lock): its
    /// transfers and its restart fail with `EBUSY` meanwhile.
    public var isTakenAway = false {
        didSet {
            if isTakenAway {
                _ = FileManager.default.createFile(atPath: takenPath, contents: nil)
            } else {
                try? FileManager.default.removeItem(atPath: takenPath)
            }
        }
    }

    /// The name of this device that also appends what is played on it to the raw file at `path`, frames in the format
    /// the program opened it with (AudioIO's playback: 32-bit float, as for any device a plugin provides).
    public func output(into path: String) -> String {
        "testbusy:'\(lockPath)','\(path)'"
    }

    private let lockPath: String
    private let takenPath: String

    deinit { close(lock) }
}

#if canImport(Testing)
import Testing

/// The held device itself, checked with alsa-utils' aplay, so that a broken rig is told apart from a broken library:
/// held, it refuses another opener with EBUSY; let go, it plays, and its output file has what was played.
@Suite struct HeldDeviceRigTests {
    @Test func aHeldDeviceRefusesAnotherOpenerAndOnceLetGoPlaysIntoItsFile() async throws {
        let scratch = try ScratchDirectory()
        try Sox.synth(to: scratch.path("tone.wav"), rate: 48000, channels: 1, seconds: 0.1, "sine 440")
        try Tool.output("sox", [scratch.path("tone.wav"), "-t", "raw", scratch.path("tone.raw")])
        let tone = try Data(contentsOf: scratch.file("tone.raw"))
        let device = try HeldDevice(in: scratch)
        let output = scratch.path("played.raw")
        let aplay = ["-q", "-N", "-D", device.output(into: output), scratch.path("tone.wav")]
        let refused = try Tool.run("aplay", aplay)
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("Device or resource busy"), "\(refused.standardError)")
        device.isHeld = false
        // aplay's drain waits on a poll descriptor the plugin does not have (AudioIO never blocks on it): the test
        // stops aplay once the tone's frames, its own 16-bit samples, are in the file (after them, the silence aplay
        // fills its last period with).
        let playing = try Tool.start("aplay", aplay)
        #expect(try await eventually { (try? Data(contentsOf: URL(fileURLWithPath: output)))?.count ?? 0 >= tone.count })
        #expect(playing.isRunning)
        playing.kill()
        let played = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(played.prefix(tone.count) == tone)
        #expect(played.dropFirst(tone.count).allSatisfy { $0 == 0 })
    }
}
#endif
