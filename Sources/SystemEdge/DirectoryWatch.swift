import Glibc
import SystemPackage

/// Names appearing in and vanishing from one directory, from the kernel's inotify: a thin wrapper of
/// `inotify_init1`, `inotify_add_watch` and `read`, with a pipe to wake the waiting thread when the watch
/// is closed.
///
/// **Thread safety**: one thread calls ``nextChanges()``; ``close()`` may be called from any other.
package final class DirectoryWatch: @unchecked Sendable {
    /// A name that appeared (created or moved in) or vanished (deleted or moved out).
    package struct Change: Equatable, Sendable {
        package var name: String
        package var appeared: Bool
    }

    package let path: String
    private let inotify: FileDescriptor
    private let wake: (readEnd: FileDescriptor, writeEnd: FileDescriptor)

    /// Starts watching the directory at `path`.
    ///
    /// - Throws: `Errno` when it cannot be watched, e.g. `ENOENT` when there is no such directory.
    package init(path: String) throws(Errno) {
        let inotify = FileDescriptor(rawValue: try Syscall.value { inotify_init1(Int32(IN_CLOEXEC)) }.get())
        do {
            let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)
            _ = try Syscall.value { inotify_add_watch(inotify.rawValue, path, mask) }.get()
            wake = try FileDescriptor.pipe()
        } catch {
            try? inotify.close()
            throw error as? Errno ?? .tooManyOpenFiles
        }
        self.path = path
        self.inotify = inotify
    }

    deinit {
        try? inotify.close()
        try? wake.readEnd.close()
        try? wake.writeEnd.close()
    }

    /// Waits for the next changes and returns them in the order they happened; `nil` once ``close()``
    /// was called.
    package func nextChanges() -> [Change]? {
        var descriptors = [PollDescriptor(inotify, events: .readable), PollDescriptor(wake.readEnd, events: .readable)]
        guard (try? Poll.wait(for: &descriptors)) != nil, descriptors[1].returnedEvents.isEmpty else { return nil }
        // Events are a header and a name padded to the header's alignment; a buffer of 4 KiB holds many.
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { bytes in
            (try? inotify.read(into: bytes, retryOnInterrupt: true)) ?? 0
        }
        var changes: [Change] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        buffer.withUnsafeBytes { bytes in
            while offset + header <= count {
                let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = bytes[(offset + header)..<min(count, offset + header + Int(event.len))]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                let appeared = event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0
                if !name.isEmpty { changes.append(Change(name: name, appeared: appeared)) }
                offset += header + Int(event.len)
            }
        }
        return changes
    }

    /// Ends the watch: the thread waiting in ``nextChanges()`` gets `nil`.
    package func close() {
        _ = try? wake.writeEnd.writeAll([UInt8(1)])
    }
}
