import Atomics
import Synchronization

/// A stream without a device, for offline rendering and tests: what is played goes to a sink, what is captured is a
/// ramp (see ``NullDevice``), and its clock is virtual — it is the frames moved through it, as fast as they are asked
/// for, so time passes only as an ``OfflineRenderer`` renders, or as the engine's thread moves frames.
///
/// It takes float samples at whatever rate and channel count it is asked for, and holds nothing queued.
final class NullStream: PCMStream {
    let name: String
    let direction: StreamDirection
    var isClocked: Bool { false }
    private let sink: (UnsafeRawBufferPointer) -> Void
    private let device: NullDevice?
    private var configuration: StreamConfiguration?

    /// A playback stream called `name` whose written frames, interleaved floats, are handed to `sink`.
    init(name: String, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        direction = .playback
        self.sink = sink
        device = nil
    }

    /// A stream on `device` for `direction`: played frames are counted and dropped.
    init(device: NullDevice, direction: StreamDirection) {
        name = device.name
        self.direction = direction
        sink = { _ in }
        self.device = device
    }

    func configure(_ request: StreamRequest) throws(DeviceError) -> StreamConfiguration {
        guard request.formats.contains(.float32) else { throw .unsupportedConfiguration }
        if let device, device.isHeld { throw .busy }
        let configuration = StreamConfiguration(
            sampleRate: request.sampleRate, channelCount: request.channelCount, format: .float32,
            periodFrames: request.periodFrames, bufferFrames: request.periodFrames * request.periods)
        self.configuration = configuration
        return configuration
    }

    func write(_ buffer: UnsafeRawPointer, frames: Int) throws(DeviceError) -> Int {
        let frames = try device?.transfer(frames) ?? frames
        sink(UnsafeRawBufferPointer(start: buffer, count: frames * (configuration?.bytesPerFrame ?? 0)))
        return frames
    }

    func waitingTime(for frames: Int) -> Double { 0 }

    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(DeviceError) -> Int {
        guard let configuration else { return 0 }
        guard let device else {
            buffer.initializeMemory(as: UInt8.self, repeating: 0, count: frames * configuration.bytesPerFrame)
            return frames
        }
        let first = device.framesTransferred
        let frames = try device.transfer(frames)
        let samples = buffer.bindMemory(to: Float.self, capacity: frames * configuration.channelCount)
        for frame in 0..<frames {
            let value = NullDevice.sample(at: first + frame)
            for channel in 0..<configuration.channelCount { samples[frame * configuration.channelCount + channel] = value }
        }
        return frames
    }

    func recover(from error: DeviceError) throws(DeviceError) {
        if error == .busy, let device, device.isHeld { throw .busy }
    }

    var delay: Int { 0 }
    func setPaused(_ paused: Bool) -> Bool { true }
    func drop() {}
    func drain() {}
    func close() {}
}

/// A device of ``NullStream``s that tests open by name in place of an ALSA PCM (``install(named:)``), and make busy as
/// another program holding it would: refused while ``isHeld``, or taken away after so many frames
/// (``takeAway(afterFrames:)``). Capture reads a ramp, ``sample(at:)`` of the device's frame count, so that a recording
/// of it shows every frame it was given, in order.
final class NullDevice: Sendable {
    let name: String
    private let held = ManagedAtomic<Bool>(false)
    private let transferred = ManagedAtomic<Int>(0)
    private let takenAt = ManagedAtomic<Int>(.max)

    private static let installed = Mutex<[String: NullDevice]>([:])

    private init(name: String) {
        self.name = name
    }

    /// A device called `name` that ``StreamFactory`` opens from now on.
    static func install(named name: String) -> NullDevice {
        let device = NullDevice(name: name)
        installed.withLock { $0[name] = device }
        return device
    }

    /// The device installed as `name`, if any.
    static func named(_ name: String) -> NullDevice? {
        installed.withLock { $0[name] }
    }

    /// The sample captured as the device's `frame`th frame: a ramp of 256 steps of 1/512, exact in 16-bit files.
    static func sample(at frame: Int) -> Float { Float(frame % 256) / 512 }

    /// Whether another program holds it: opening fails and running streams fail with ``DeviceError/busy``.
    var isHeld: Bool {
        get { held.load(ordering: .acquiring) }
        set { held.store(newValue, ordering: .releasing) }
    }

    /// Frames played or captured through it so far.
    var framesTransferred: Int { transferred.load(ordering: .acquiring) }

    /// Holds the device once `frames` frames in all went through it: the stream moving the last of them fails next.
    func takeAway(afterFrames frames: Int) {
        takenAt.store(frames, ordering: .releasing)
    }

    /// Stream thread: moves up to `frames` frames, fewer to stop where it is taken away; throws once it is held.
    fileprivate func transfer(_ frames: Int) throws(DeviceError) -> Int {
        let done = transferred.load(ordering: .relaxed)
        if done >= takenAt.load(ordering: .relaxed) {
            takenAt.store(.max, ordering: .relaxed)
            isHeld = true
        }
        if isHeld { throw .busy }
        let moved = min(frames, takenAt.load(ordering: .relaxed) - done)
        transferred.store(done + moved, ordering: .releasing)
        return moved
    }
}
