import Glibc
import SystemPackage

extension Errno {
    /// No medium found: for sd-bus, no session bus address and no runtime directory to find one in.
    ///
    /// The corresponding C error is `ENOMEDIUM` (Linux's own, which swift-system leaves out).
    package static var noMedium: Errno { Errno(rawValue: ENOMEDIUM) }
}
