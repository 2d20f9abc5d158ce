import Atomics
import AudioIO
import Dispatch
import Foundation
import Glibc

/// A playback device whose output can be watched: ALSA's `file` PCM (on `null`, so unclocked) writing into a
/// FIFO that a thread of ours reads. The first bytes out of the FIFO after ``arm()`` are the first frames the
/// engine handed to ALSA since then (the `file` plugin passes on each write it gets).
final class FirstFrameProbe: @unchecked Sendable {
    /// The PCM name to play on.
    let device: String
    /// A one-second stereo tone, 48 kHz 16-bit, made by sox.
    let tone: URL

    /// Where the FIFO and the tone live; removed when the process exits (the harness may not release the probe).
    private static var directory: URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("voicememo-test-latency-\(getpid())")
    }
    private let armed = ManagedAtomic<Bool>(false)
    /// Monotonic nanoseconds of the first bytes read since ``arm()``, 0 until then.
    private let firstBytesAt = ManagedAtomic<UInt64>(0)
    /// Monotonic nanoseconds of the last bytes read.
    private let lastBytesAt = ManagedAtomic<UInt64>(0)

    init() throws {
        let directory = Self.directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: FirstFrameProbe.directory) }
        let fifo = directory.appendingPathComponent("out.fifo").path
        guard mkfifo(fifo, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        device = "file:FILE=\(fifo),FORMAT=raw"
        tone = directory.appendingPathComponent("tone.wav")
        let sox = Process()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = ["-n", "-r", "48000", "-b", "16", "-c", "2", tone.path, "synth", "1", "sine", "440", "vol", "0.5"]
        try sox.run()
        sox.waitUntilExit()
        guard sox.terminationStatus == 0 else { throw POSIXError(.EIO) }
        Thread.detachNewThread { [self] in readForever(fifo) }
    }

    /// Waits until nothing has come out of the FIFO for 20 ms (what the previous play left has drained), then
    /// watches for the next bytes.
    func arm() {
        while Self.now() - lastBytesAt.load(ordering: .acquiring) < 20_000_000 { usleep(1000) }
        firstBytesAt.store(0, ordering: .relaxed)
        armed.store(true, ordering: .releasing)
    }

    /// Waits (spinning, to add no wake-up delay of its own) for the first bytes since ``arm()``; false after 2 s.
    func waitForFirstBytes() -> Bool {
        let deadline = Self.now() + 2_000_000_000
        while firstBytesAt.load(ordering: .acquiring) == 0 {
            if Self.now() > deadline { return false }
            sched_yield()
        }
        return true
    }

    private func readForever(_ fifo: String) {
        // Blocks until the device opens the FIFO for writing; alsa-lib reopens it with every new engine.
        let descriptor = open(fifo, O_RDONLY)
        guard descriptor >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { usleep(1000); continue }
            let now = Self.now()
            lastBytesAt.store(now, ordering: .releasing)
            if armed.exchange(false, ordering: .acquiringAndReleasing) { firstBytesAt.store(now, ordering: .releasing) }
        }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
