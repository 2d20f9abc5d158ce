import Glibc
import SystemPackage

/// What a descriptor is waited for, or was found ready for, by ``Poll/wait(for:)``.
package struct PollEvents: OptionSet, Sendable {
    package let rawValue: Int16
    package init(rawValue: Int16) { self.rawValue = rawValue }

    /// There is something to read (for a pipe's read end: also that the write end was closed).
    ///
    /// The corresponding C constant is `POLLIN`.
    package static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// Reported only: the descriptor failed. The corresponding C constant is `POLLERR`.
    package static let failed = PollEvents(rawValue: Int16(POLLERR))
    /// Reported only: the other end hung up (a device gone). The corresponding C constant is `POLLHUP`.
    package static let hungUp = PollEvents(rawValue: Int16(POLLHUP))
    /// Reported only: the descriptor is not open. The corresponding C constant is `POLLNVAL`.
    package static let invalid = PollEvents(rawValue: Int16(POLLNVAL))
}

/// A descriptor to wait for, and what it was found ready for.
package struct PollDescriptor: RawRepresentable, Sendable {
    package var rawValue: pollfd

    package init(rawValue: pollfd) { self.rawValue = rawValue }

    /// `descriptor`, waited for `events`.
    package init(_ descriptor: FileDescriptor, events: PollEvents) {
        rawValue = pollfd(fd: descriptor.rawValue, events: events.rawValue, revents: 0)
    }

    /// What the last ``Poll/wait(for:)`` found: the events asked for that happened, and failures, hang-ups and a
    /// descriptor not open, which are reported whether asked for or not.
    package var returnedEvents: PollEvents { PollEvents(rawValue: rawValue.revents) }
}

/// Waiting on several descriptors at once.
package enum Poll {
    /// Waits until at least one of `descriptors` is ready, for as long as it takes: a signal handled meanwhile does not
    /// end the wait. On return, each one's ``PollDescriptor/returnedEvents`` says what it is ready for.
    ///
    /// The corresponding C function is `poll`, with no time limit.
    ///
    /// - Throws: `Errno` when the kernel cannot wait on them (out of memory).
    package static func wait(for descriptors: inout [PollDescriptor]) throws(Errno) {
        var raw = descriptors.map(\.rawValue)
        for index in raw.indices { raw[index].revents = 0 }
        _ = try Syscall.value { poll(&raw, nfds_t(raw.count), -1) }.get()
        descriptors = raw.map(PollDescriptor.init(rawValue:))
    }
}
