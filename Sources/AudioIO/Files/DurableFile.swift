import SystemEdge
import SystemPackage

/// Writes that are durable and atomic: a file written beside its place, synced and renamed into it, and the directory
/// synced after. Shared with `MemoStore` for its index.
package enum DurableFile {
    /// Puts `source` at `destination` unless something is there already, in one step: the new name is a second
    /// link to the file, and the first goes once it is made.
    ///
    /// - Throws: `Errno.fileExists` when `destination` exists; nothing changes then.
    package static func place(_ source: String, at destination: String) throws(Errno) {
        try FileNames.link(source, as: destination)
        // Left, the first name is a leftover of the kind the store removes.
        FileNames.removeIgnoringFailure(source)
    }

    /// Syncs the directory holding `path`, so that a rename or a new entry in it survives a power cut.
    package static func syncDirectory(containing path: String) throws(Errno) {
        let directory = FilePath(path).removingLastComponent()
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(
                directory.isEmpty ? "." : directory, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw error as? Errno ?? .ioError
        }
        defer { try? descriptor.close() }
        try descriptor.sync()
    }

    /// Puts `bytes` in place of the file at `path` in one step: written to a temporary file beside it
    /// (`.<name>.<random>.tmp`, or `<name>.<random>.tmp` for a name that is hidden already) with
    /// `permissions`, synced to the disk first when `syncing`, then renamed over `path`. A reader sees the old
    /// file or the new one, never a part; the temporary file is removed when anything fails. Unless
    /// `replacingExisting`, a file at `path` is kept and the write fails with `Errno.fileExists`.
    package static func write(
        _ bytes: some Sequence<UInt8>, replacing path: String, permissions: FilePermissions, syncing: Bool,
        replacingExisting: Bool = true
    ) throws {
        // By hand rather than through FilePath, whose component operations take seconds on a name of thousands of
        // characters; the name cut to 200 bytes, within the 255 a name may have.
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = String(path[slash...])
        let hidden = (name.hasPrefix(".") ? name : "." + name).prefix(utf8Bytes: 200)
        let temporary = String(path[..<slash]) + "\(hidden).\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
        do {
            let descriptor = try FileDescriptor.open(
                temporary, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: permissions)
            try descriptor.closeAfter {
                try descriptor.writeAll(bytes)
                if syncing { try descriptor.sync() }
            }
            if replacingExisting {
                try FileNames.rename(temporary, to: path)
            } else {
                try place(temporary, at: path)
            }
        } catch {
            FileNames.removeIgnoringFailure(temporary)
            throw error
        }
    }

    /// The whole content of the file at `path`.
    ///
    /// - Throws: the C library's error when it cannot be opened or read (`ENOENT` when there is none).
    package static func contents(of path: String) throws(Errno) -> [UInt8] {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
        } catch {
            throw error as? Errno ?? .ioError
        }
        defer { try? descriptor.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try descriptor.read(into: $0, retryOnInterrupt: true) }
            } catch {
                throw error as? Errno ?? .ioError
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }
}
