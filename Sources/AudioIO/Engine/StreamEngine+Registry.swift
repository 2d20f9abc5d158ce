import Synchronization

/// The registry: one engine per device and direction in a process, made by the first client that needs it, left by
/// one whose device failed (the next client opens the device anew) or once an offline render is done.
extension StreamEngine {
    private struct Key: Hashable {
        var device: String
        var direction: StreamDirection
    }

    private static let engines = Mutex<[Key: StreamEngine]>([:])

    /// The engine of `device` for `direction`, opening the stream ``StreamFactory`` chooses for it as `request` asks
    /// (or as near as it takes) the first time: the first client of a device sets its format and buffer for as long
    /// as the process has it open, and the others convert.
    static func engine(for device: String, direction: StreamDirection, request: StreamRequest) throws(AudioDeviceError) -> StreamEngine {
        let key = Key(device: device, direction: direction)
        let result: Result<(StreamEngine, Bool), AudioDeviceError> = engines.withLock { engines in
            // One that failed is on its way out of the registry: the device is opened anew.
            if let engine = engines[key], engine.failure == nil { return .success((engine, false)) }
            do throws(DeviceError) {
                let engine = try StreamEngine(stream: StreamFactory.open(device, direction: direction), request: request)
                engines[key] = engine
                return .success((engine, true))
            } catch {
                return .failure(AudioDeviceError(device: device, operation: .open, error))
            }
        }
        let (engine, opened) = try result.get()
        if opened { EngineObservers.tell { $0.engineOpened(device, direction: direction) } }
        return engine
    }

    /// Every engine open on a device for `direction`.
    static func all(_ direction: StreamDirection) -> [StreamEngine] {
        engines.withLock { $0.values.filter { $0.direction == direction && !$0.isOffline } }
    }

    /// A playback engine of its own, called `name` so that players given that device name play into it, that renders
    /// into `sink` only when ``renderOffline(frames:)`` is called: its clock stands still in between.
    static func offline(named name: String, request: StreamRequest, sink: @escaping (UnsafeRawBufferPointer) -> Void) throws(DeviceError) -> StreamEngine {
        let engine = try StreamEngine(stream: NullStream(name: name, sink: sink), request: request, isOffline: true)
        engines.withLock { $0[Key(device: name, direction: .playback)] = engine }
        return engine
    }

    /// Takes this engine out of the registry, unless another has taken its place.
    func leaveRegistry() {
        let key = Key(device: deviceName, direction: direction)
        Self.engines.withLock { engines in
            if engines[key] === self { engines[key] = nil }
        }
    }
}
