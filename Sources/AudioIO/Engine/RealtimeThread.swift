import Glibc
import SystemPackage

/// Starts the library's threads, all with pthreads: the audio threads `SCHED_FIFO` when the process may (an
/// rtkit grant, `CAP_SYS_NICE`, an `rtprio` limit), otherwise ordinary, silently, as every desktop audio
/// library does; the playback decoders, the recording writers and the hotplug watch as ordinary threads.
enum RealtimeThread {
    /// The `SCHED_FIFO` priority asked for: above ordinary work, below the kernel's own threads.
    static let priority: Int32 = 50

    /// Runs `body` on a new detached thread named `name` (at most 15 characters); `SCHED_FIFO` unless
    /// `realtime` is false (an ordinary thread: for work that blocks or runs user code, and for a device
    /// without a clock, whose audio thread never waits for the device and would hold a core).
    static func start(name: String, realtime: Bool = true, _ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            let name: String
            let realtime: Bool
            init(_ body: @escaping @Sendable () -> Void, _ name: String, _ realtime: Bool) {
                self.body = body
                self.name = name
                self.realtime = realtime
            }
        }
        let context = Unmanaged.passRetained(Box(body, name, realtime)).toOpaque()
        let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            // What pthread_setname_np does, which the Glibc module leaves out (a GNU extension).
            if let comm = try? FileDescriptor.open("/proc/thread-self/comm", .writeOnly) {
                _ = try? comm.closeAfter { try comm.writeAll(box.name.utf8.prefix(15)) }
            }
            if box.realtime {
                var parameters = sched_param(sched_priority: RealtimeThread.priority)
                _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            }
            box.body()
            return nil
        }
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let result = pthread_create(&thread, &attributes, entry, context)
        pthread_attr_destroy(&attributes)
        precondition(result == 0, "pthread_create failed: \(result)")
    }
}
