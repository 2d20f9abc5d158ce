import Glibc
import Synchronization
import SystemPackage

/// Signals sent to the process, delivered as calls on an ordinary thread of their own, to any number of
/// observers: how the session learns of Ctrl-Z and `fg`, and how the CLI learns of Ctrl-C, SIGTERM and SIGHUP.
///
/// A signal is caught by a handler (`sigaction`) that only writes its number into a pipe, which is all a
/// handler may safely do; the thread reading the pipe calls the observers. Every signal observed is caught
/// on whichever thread the kernel picks, so none is lost: a signal set to be ignored until a watcher takes it
/// over (libdispatch's signal sources work so) is dropped when it lands on a thread that has not blocked it,
/// which any thread started with pthreads has not.
///
/// While nobody observes a signal, it has its default action again.
///
/// **Thread safety**: observe and cancel from any thread. Observers run one at a time, in the order the
/// signals came, on the signal thread: they must return promptly (the next signal waits for them).
package enum ProcessSignals {
    /// A registration; the signals go to its observer until ``cancel()`` is called or it is released.
    package final class Observation: Sendable {
        fileprivate let id: Int
        init(id: Int) { self.id = id }
        deinit { cancel() }

        /// Stops the calls; the signals no one else observes get their default action back.
        package func cancel() { ProcessSignals.remove(id) }
    }

    /// Calls `observer` with each of `signals` the process receives, from now on until the returned observation is
    /// cancelled or released.
    package static func observe(_ signals: [Signal], _ observer: @escaping @Sendable (Signal) -> Void) -> Observation {
        let descriptor = channel.writeEnd
        return registry.withLock { registry in
            registry.nextID += 1
            let id = registry.nextID
            for signal in signals {
                if !registry.observers.contains(where: { $0.signals.contains(signal) }) { catchSignal(signal, writingTo: descriptor) }
            }
            registry.observers.append((id, signals, observer))
            return Observation(id: id)
        }
    }

    private struct Registry {
        var nextID = 0
        var observers: [(id: Int, signals: [Signal], call: @Sendable (Signal) -> Void)] = []
    }

    private static let registry = Mutex(Registry())

    /// The pipe from the handler to the signal thread, made (and the thread started) once.
    private static let channel: (readEnd: FileDescriptor, writeEnd: FileDescriptor) = {
        let ends: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do {
            ends = try FileDescriptor.pipe()
        } catch {
            preconditionFailure("cannot make the signal pipe: \(error)")
        }
        for end in [ends.readEnd, ends.writeEnd] { _ = fcntl(end.rawValue, F_SETFD, FD_CLOEXEC) }
        // A full pipe must not block the handler: a signal that does not fit is one already on its way.
        _ = fcntl(ends.writeEnd.rawValue, F_SETFL, O_NONBLOCK)
        handlerDescriptor = ends.writeEnd.rawValue
        SystemThread.detach(name: "signals", realtime: false) { deliver(from: ends.readEnd) }
        return ends
    }()

    /// The write end as the handler reads it: a plain global set once, before any handler is installed.
    nonisolated(unsafe) private static var handlerDescriptor: Int32 = -1

    private static func catchSignal(_ signal: Signal, writingTo descriptor: FileDescriptor) {
        precondition(descriptor.rawValue == handlerDescriptor)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            // Only async-signal-safe calls: one write, errno kept for the code the signal interrupted.
            let saved = errno
            var byte = UInt8(truncatingIfNeeded: number)
            _ = write(ProcessSignals.handlerDescriptor, &byte, 1)
            errno = saved
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        sigaction(signal.rawValue, &action, nil)
    }

    private static func remove(_ id: Int) {
        registry.withLock { registry in
            guard let position = registry.observers.firstIndex(where: { $0.id == id }) else { return }
            let removed = registry.observers.remove(at: position)
            for removedSignal in removed.signals where !registry.observers.contains(where: { $0.signals.contains(removedSignal) }) {
                signal(removedSignal.rawValue, SIG_DFL)
            }
        }
    }

    /// The signal thread: each number read goes to the observers of that signal, in the order they came.
    private static func deliver(from descriptor: FileDescriptor) {
        // A thread inherits the signal mask of the one that made it, and libdispatch's threads block every
        // signal: this one takes them all, so that some thread always can.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        var byte: UInt8 = 0
        while (try? withUnsafeMutableBytes(of: &byte) { try descriptor.read(into: $0, retryOnInterrupt: true) }) == 1 {
            let signal = Signal(rawValue: Int32(byte))
            let calls = registry.withLock { $0.observers.filter { $0.signals.contains(signal) }.map(\.call) }
            for call in calls { call(signal) }
        }
    }
}
