import Glibc
import SystemPackage

/// Where a C library call's "-1 and `errno`" becomes a Swift result, and the one place a call that a signal
/// interrupted (`EINTR`) is made again: the wrappers of this module that can be interrupted go through it. No code
/// above this module reads `errno`.
///
/// After swift-system's `valueOrErrno(retryOnInterrupt:_:)`.
enum Syscall {
    /// `call()`'s value, or the error it set when it returned -1; made again while it fails with `EINTR`.
    static func value<I: FixedWidthInteger>(_ call: () -> I) -> Result<I, Errno> {
        while true {
            let value = call()
            if value != -1 { return .success(value) }
            let error = Errno(rawValue: errno)
            if error != .interrupted { return .failure(error) }
        }
    }

    /// Nothing, or the error `call()` set when it returned -1; made again while it fails with `EINTR`.
    static func nothing<I: FixedWidthInteger>(_ call: () -> I) -> Result<Void, Errno> {
        value(call).map { _ in () }
    }
}
