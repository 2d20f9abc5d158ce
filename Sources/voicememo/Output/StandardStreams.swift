import Glibc

/// Writes `text` to `descriptor` (`STDOUT_FILENO`, `STDERR_FILENO`) at once and whole, past stdio's
/// buffers (which flush a terminal line by line): what Foundation's `FileHandle.write` did.
func writeAll(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
