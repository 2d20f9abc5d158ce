/// Float samples as 16-bit PCM, exactly as libsndfile makes them with clipping on (`SFC_SET_CLIPPING`; `f2les_clip_array`
/// in its `pcm.c`): the sample times 2³¹, full scale at or past ±2³¹, else rounded to the nearest integer (ties to
/// even, as `lrintf`) and its top 16 bits kept. NaN and ±infinity are 0, as ``NonFiniteSamples`` has them everywhere.
///
/// ``AudioFileWriter`` converts this way and hands libsndfile 16-bit samples, which it writes as they are: one pass the
/// compiler vectorises, where libsndfile's own converts a sample at a time and writes its 8 KB buffer in pieces. Every
/// finite float gives what libsndfile gives (compared over all 2³² bit patterns when this was written; the tests
/// compare the two files). Allocates nothing.
enum SixteenBitPCM {
    /// Writes `input` converted into `output`, which has room for `input.count` samples.
    static func convert(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Int16>) {
        precondition(output.count >= input.count)
        for index in input.indices {
            let scaled = NonFiniteSamples.finite(input[index]) * 2_147_483_648
            // 1.5 × 2⁵² added to a double below 2⁵¹ in magnitude rounds it to an integer, ties to even, and leaves that
            // integer in the low bits of the sum: `lrintf` with no conversion that traps, so that the loop vectorises.
            let rounded = Int32(truncatingIfNeeded: (Double(scaled) + 0x1.8p52).bitPattern)
            let value = Int16(truncatingIfNeeded: rounded >> 16)
            output[index] = scaled >= 2_147_483_648 ? .max : scaled <= -2_147_483_648 ? .min : value
        }
    }
}
