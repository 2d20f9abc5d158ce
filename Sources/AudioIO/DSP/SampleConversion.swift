/// Converts between the engine's float samples (−1…1) and the sample formats devices take.
///
/// Scaling is by powers of two, the inverse of libsndfile's integer-to-float reading, so a 16- or 24-bit
/// file reaches a device bit for bit. Out-of-range samples are clipped and NaN becomes silence (a damaged
/// float file must not bring the render thread down). Allocates nothing.
package enum SampleConversion {
    /// Writes `input` into `output` (room for `input.count` samples of `format`).
    package static func encode(_ input: UnsafeBufferPointer<Float>, as format: SampleFormat, into output: UnsafeMutableRawPointer) {
        switch format {
        case .float32:
            output.copyMemory(from: input.baseAddress!, byteCount: input.count * 4)
        case .int32:
            let samples = output.assumingMemoryBound(to: Int32.self)
            for index in input.indices {
                let value = input[index]
                samples[index] = value >= 1 ? .max : value > -1 ? Int32(value * 2_147_483_648) : value <= -1 ? .min : 0
            }
        case .int24:
            let bytes = output.assumingMemoryBound(to: UInt8.self)
            for index in input.indices {
                let value = (input[index] * 8_388_608).rounded()
                let sample = value >= 8_388_607 ? 8_388_607 : value > -8_388_608 ? Int32(value) : value <= -8_388_608 ? -8_388_608 : 0
                bytes[3 * index] = UInt8(truncatingIfNeeded: sample)
                bytes[3 * index + 1] = UInt8(truncatingIfNeeded: sample >> 8)
                bytes[3 * index + 2] = UInt8(truncatingIfNeeded: sample >> 16)
            }
        case .int16:
            let samples = output.assumingMemoryBound(to: Int16.self)
            for index in input.indices {
                let value = (input[index] * 32768).rounded()
                samples[index] = value >= 32767 ? .max : value > -32768 ? Int16(value) : value <= -32768 ? .min : 0
            }
        }
    }

    /// Reads `output.count` samples of `format` from `input` into floats.
    static func decode(_ input: UnsafeRawPointer, as format: SampleFormat, into output: UnsafeMutableBufferPointer<Float>) {
        switch format {
        case .float32:
            output.baseAddress!.update(from: input.assumingMemoryBound(to: Float.self), count: output.count)
        case .int32:
            let samples = input.assumingMemoryBound(to: Int32.self)
            for index in output.indices { output[index] = Float(Double(samples[index]) / 2_147_483_648) }
        case .int24:
            let bytes = input.assumingMemoryBound(to: UInt8.self)
            for index in output.indices {
                // The three bytes into the top of an Int32, whose arithmetic shift brings the sign down.
                let sample = Int32(bitPattern: UInt32(bytes[3 * index]) << 8 | UInt32(bytes[3 * index + 1]) << 16 | UInt32(bytes[3 * index + 2]) << 24) >> 8
                output[index] = Float(sample) / 8_388_608
            }
        case .int16:
            let samples = input.assumingMemoryBound(to: Int16.self)
            for index in output.indices { output[index] = Float(samples[index]) / 32768 }
        }
    }
}
