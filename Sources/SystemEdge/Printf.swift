import Glibc

/// Numbers as C's `printf` writes them: what `String(format:)` gave, which is Foundation's, not FoundationEssentials'.
package enum Printf {
    /// `value` written with `format`, one conversion of a `double` (e.g. `%.1f`, `%g`).
    ///
    /// The corresponding C function is `vsnprintf`, into a buffer on the stack: a meter formats four levels twenty
    /// times a second.
    package static func string(_ value: Double, format: String) -> String {
        withVaList([value]) { arguments in
            // Room for any double in `%f`: up to 309 digits before the point.
            withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { text in
                let count = Int(vsnprintf(text.baseAddress!, text.count, format, arguments))
                return String(decoding: UnsafeRawBufferPointer(start: text.baseAddress, count: min(max(count, 0), text.count - 1)), as: UTF8.self)
            }
        }
    }
}
