/// Converts between the engine's float samples (−1…1) and the sample formats devices take.
///
/// Scaling is by powers of two, the inverse of libsndfile's integer-to-float reading, so a 16- or 24-bit
/// file reaches a device bit for bit. Out-of-range samples are clipped and NaN becomes silence (a damaged
/// float file must not bring the render thread down). Allocates nothing.
package enum SampleConversion {
    /// Writes `input` into `output` (room for `input.count` samples of `format`).
    package static func encode(_ input: UnsafeBufferPointer<Float>, as format: PCMSampleFormat, into output: UnsafeMutableRawPointer) {
        switch format {
        case .float32:
            output.copyMemory(from: input.baseAddress!, byteCount: input.count * 4)
        case .int32:
            let samples = output.assumingMemoryBound(to: Int32.self)
            for index in input.indices {
                let value = input[index]
                samples[index] = value >= 1 ? .max : value > -1 ? Int32(value * 2_147_483_648) : value <= -1 ? .min : 0
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
    static func decode(_ input: UnsafeRawPointer, as format: PCMSampleFormat, into output: UnsafeMutableBufferPointer<Float>) {
        switch format {
        case .float32:
            output.baseAddress!.update(from: input.assumingMemoryBound(to: Float.self), count: output.count)
        case .int32:
            let samples = input.assumingMemoryBound(to: Int32.self)
            for index in output.indices { output[index] = Float(Double(samples[index]) / 2_147_483_648) }
        case .int16:
            let samples = input.assumingMemoryBound(to: Int16.self)
            for index in output.indices { output[index] = Float(samples[index]) / 32768 }
        }
    }
}
