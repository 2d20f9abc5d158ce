import Glibc

/// This process's end, and the C library's output buffers that must be written out before it or meanwhile.
package enum CurrentProcess {
    /// Writes out what the C library's output streams hold: what `print` wrote and they keep (all of it when standard
    /// output is not a terminal, the last line's start when it is).
    ///
    /// The corresponding C function is `fflush` with `NULL`.
    package static func flushOutput() {
        fflush(nil)
    }

    /// Runs `handler` when the process ends through ``exit(_:)`` or by returning from its main function (not when a
    /// signal ends it).
    ///
    /// The corresponding C function is `atexit`.
    package static func atExit(_ handler: @escaping @convention(c) () -> Void) {
        atexit(handler)
    }

    /// Ends the process with `status`, after the handlers of ``atExit(_:)`` and with the output streams written out.
    ///
    /// The corresponding C function is `exit`.
    package static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
