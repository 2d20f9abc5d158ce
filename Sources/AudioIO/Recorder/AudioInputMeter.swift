import Atomics
import FoundationEssentials
import Synchronization

/// Measures the level of an ALSA capture device without recording: the input side of a level meter.
///
/// ```swift
/// let meter = AudioInputMeter(device: "default")
/// try meter.start()
/// meter.updateMeters()
/// print(meter.peakPower(forChannel: 0), meter.averagePower(forChannel: 0))
/// ```
///
/// It listens on the same capture stream as recorders on that device, with the same metering as
/// ``AudioRecorder``: each ``updateMeters()`` takes the levels of everything captured since the previous
/// one, per device channel.
///
/// **Thread safety**: every member may be used from any thread.
public final class AudioInputMeter: @unchecked Sendable {
    /// The ALSA PCM measured.
    public let device: String
    private let requestedChannels: Int
    private let state = Mutex(MeterState())

    private struct MeterState {
        var engine: StreamEngine?
        var tap: CaptureTap?
        var levels = AudioLevels(peak: [], average: [])
        var failure: AudioDeviceError?
    }

    /// A meter for `device` (`nil`: "default"), asking it for `channelCount` channels (it may give
    /// another count, which ``channelCount`` then says). Nothing is opened yet.
    public init(device: String? = nil, channelCount: Int = 2) {
        self.device = device ?? "default"
        requestedChannels = channelCount
    }

    deinit { stop() }

    /// Opens the device (if nothing captures from it yet) and starts measuring.
    ///
    /// - Throws: ``AudioDeviceError`` when the device cannot be opened or has failed.
    public func start() throws(AudioDeviceError) {
        let result: Result<Void, AudioDeviceError> = state.withLock { state in
            guard state.tap == nil else { return .success(()) }
            do throws(AudioDeviceError) {
                // 48 kHz, and 32-bit samples, exact for 16- and 24-bit devices.
                let request = AudioSession.shared.captureRequest(
                    sampleRate: 48000, channelCount: requestedChannels, formats: [.int32, .float32, .int16])
                let engine = try StreamEngine.engine(for: device, direction: .capture, request: request)
                let channels = engine.configuration.channelCount
                let tap = CaptureTap(
                    channelCount: channels, channelMap: .identity, periodFrames: engine.configuration.periodFrames,
                    capacityFrames: 0)
                tap.owner = self
                tap.isMeteringEnabled.store(true, ordering: .relaxed)
                tap.startFrame.store(CaptureTap.immediately, ordering: .releasing)
                try engine.add(tap)
                state.engine = engine
                state.tap = tap
                state.failure = nil
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Stops measuring; the device stays open for others.
    public func stop() {
        state.withLock { state in
            state.tap?.removalRequested.store(true, ordering: .releasing)
            state.engine?.wake()
            state.tap = nil
        }
    }

    /// Whether it is measuring: started, and the device has not failed.
    public var isRunning: Bool { state.withLock { $0.tap != nil } }

    /// Why measuring stopped by itself: the device failed (unplugged, server gone).
    public var failure: AudioDeviceError? { state.withLock { $0.failure } }

    /// Channels measured: the device's; before ``start()``, the count asked for.
    public var channelCount: Int { state.withLock { $0.tap?.channelCount ?? requestedChannels } }

    /// Seconds of input measured since ``start()``.
    public var currentTime: TimeInterval {
        state.withLock { state in
            guard let tap = state.tap, let engine = state.engine else { return 0 }
            return Double(tap.deliveredFrames.load(ordering: .acquiring)) / engine.sampleRate
        }
    }

    /// Takes the levels of everything captured since the previous call for ``averagePower(forChannel:)``
    /// and ``peakPower(forChannel:)``; silence if nothing was.
    public func updateMeters() {
        state.withLock { state in
            state.levels = state.tap?.takeLevels() ?? AudioLevels(peak: [], average: [])
        }
    }

    /// Peak level of `channel` (0-based) at the last ``updateMeters()``, in dBFS: 0 is full scale, −160
    /// silence (also for a channel that does not exist).
    public func peakPower(forChannel channel: Int) -> Float {
        state.withLock { $0.levels.peakPower(forChannel: channel) }
    }

    /// Average (RMS) level of `channel` at the last ``updateMeters()``, in dBFS, −160…0.
    public func averagePower(forChannel channel: Int) -> Float {
        state.withLock { $0.levels.averagePower(forChannel: channel) }
    }
}

extension AudioInputMeter: CaptureTapOwner {
    func tapDidStart(_ tap: CaptureTap) {}
    func tapDidFinish(_ tap: CaptureTap) {}
    func tapDidOverrun(_ tap: CaptureTap, frames: Int) {}

    func tapDidLoseDevice(_ tap: CaptureTap, error: AudioDeviceError) {
        state.withLock { state in
            guard state.tap === tap else { return }
            state.failure = error
            state.tap = nil
            state.engine = nil
        }
    }
}
