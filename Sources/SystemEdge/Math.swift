import Glibc

/// The C library's mathematics that Swift's standard library lacks.
package enum Math {
    /// The base-10 logarithm of `x`. The corresponding C function is `log10`.
    package static func log10(_ x: Double) -> Double { Glibc.log10(x) }

    /// `x` to the power `y`. The corresponding C function is `pow`.
    package static func pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
}
