import Foundation

extension posix_spawn_file_actions_t {
    /// Adds "close every descriptor from `lowest` on" to these file actions, so that a child started with
    /// them inherits nothing else of the test process: a long-lived child holding the write end of another
    /// test's pipe would keep that test waiting for the end of its tool's output.
    ///
    /// glibc (2.34 and later) has `posix_spawn_file_actions_addclosefrom_np`, but Swift's Glibc module
    /// does not import it: it is looked up by name.
    mutating func closeDescriptors(from lowest: Int32) throws {
        guard let closeFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else {
            throw SpawnFailure(description: "this C library lacks posix_spawn_file_actions_addclosefrom_np (glibc ≥ 2.34)")
        }
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&self, lowest)
    }
}

/// A child process could not be started.
public struct SpawnFailure: Error, CustomStringConvertible {
    public let description: String
}
