import Glibc
import SystemPackage

/// A thread of the C library's own (pthreads), named for `top -H` and `/proc/PID/task/*/comm`: for the threads a
/// process keeps for its whole work (audio, decoders, writers, watches, signals, a display's ticks), which the Swift
/// concurrency pool must not be tied up by.
///
/// An audio thread asks for `SCHED_FIFO` (`realtime`) and runs as an ordinary thread, silently, where the process may
/// not have it (no rtkit grant, `CAP_SYS_NICE` or `rtprio` limit), as every desktop audio library does.
package struct SystemThread: @unchecked Sendable {
    /// The `SCHED_FIFO` priority a real-time thread asks for: above ordinary work, below the kernel's own threads.
    static let realtimePriority: Int32 = 50

    private let thread: pthread_t

    /// Starts `body` on a new, ordinary thread named `name` (at most 15 characters are kept), which ``join()`` waits
    /// for, and must.
    ///
    /// The corresponding C function is `pthread_create`. A thread that cannot be made (the process is out of threads or
    /// memory) traps.
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        thread = Self.create(name: name, realtime: false, detached: false, body)
    }

    /// Waits for the thread to end.
    ///
    /// The corresponding C function is `pthread_join`.
    package func join() {
        pthread_join(thread, nil)
    }

    /// Starts `body` on a new thread named `name`, `SCHED_FIFO` when `realtime`, that nothing waits for: its resources
    /// go when it ends.
    ///
    /// The corresponding C functions are `pthread_create` and `pthread_setschedparam`. A thread that cannot be made
    /// traps.
    package static func detach(name: String, realtime: Bool, _ body: @escaping @Sendable () -> Void) {
        _ = create(name: name, realtime: realtime, detached: true, body)
    }

    private static func create(
        name: String, realtime: Bool, detached: Bool, _ body: @escaping @Sendable () -> Void
    ) -> pthread_t {
        let start = Start(name: name, realtime: realtime, body: body)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            Unmanaged<Start>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, Unmanaged.passRetained(start).toOpaque())
        precondition(result == 0, "pthread_create failed: \(Errno(rawValue: result))")
        return thread
    }

    /// What a new thread does first, then its body.
    private final class Start: @unchecked Sendable {
        let name: String
        let realtime: Bool
        let body: @Sendable () -> Void

        init(name: String, realtime: Bool, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.realtime = realtime
            self.body = body
        }

        func run() {
            // What pthread_setname_np does, which the Glibc module leaves out (a GNU extension).
            if let comm = try? FileDescriptor.open("/proc/thread-self/comm", .writeOnly) {
                _ = try? comm.closeAfter { try comm.writeAll(name.utf8.prefix(15)) }
            }
            if realtime {
                var parameters = sched_param(sched_priority: SystemThread.realtimePriority)
                // Refused where the process may not have it: the thread runs as an ordinary one.
                _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
            }
            body()
        }
    }
}
