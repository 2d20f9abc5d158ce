/// A stream without a device, for offline rendering: what is played goes to a sink, what is captured is silence, and
/// its clock is virtual — it is the frames moved through it, as fast as they are asked for, so time passes only as an
/// ``OfflineRenderer`` renders.
///
/// It takes float samples at whatever rate and channel count it is asked for, and holds nothing queued.
final class NullStream: PCMStream {
    let name: String
    let direction: StreamDirection
    var isClocked: Bool { false }
    private let sink: (UnsafeRawBufferPointer) -> Void
    private var bytesPerFrame = 0

    /// A playback stream called `name` whose written frames, interleaved floats, are handed to `sink`.
    init(name: String, sink: @escaping (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        direction = .playback
        self.sink = sink
    }

    func configure(_ request: StreamRequest) throws(DeviceError) -> StreamConfiguration {
        guard request.formats.contains(.float32) else { throw .unsupportedConfiguration }
        let configuration = StreamConfiguration(
            sampleRate: request.sampleRate, channelCount: request.channelCount, format: .float32,
            periodFrames: request.periodFrames, bufferFrames: request.periodFrames * request.periods)
        bytesPerFrame = configuration.bytesPerFrame
        return configuration
    }

    func write(_ buffer: UnsafeRawPointer, frames: Int) throws(DeviceError) -> Int {
        sink(UnsafeRawBufferPointer(start: buffer, count: frames * bytesPerFrame))
        return frames
    }

    func waitingTime(for frames: Int) -> Double { 0 }

    func read(into buffer: UnsafeMutableRawPointer, frames: Int) throws(DeviceError) -> Int {
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: frames * bytesPerFrame)
        return frames
    }

    func recover(from error: DeviceError) throws(DeviceError) {}
    var delay: Int { 0 }
    func setPaused(_ paused: Bool) -> Bool { true }
    func drop() {}
    func drain() {}
    func close() {}
}
