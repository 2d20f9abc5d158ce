@testable import AudioIO
import CSndFile
import Foundation
import SystemPackage
import TestSupport
import Testing

/// A 16-bit file written from floats holds what libsndfile's own conversion makes of them, to the bit: the writer
/// converts them itself now (`SixteenBitPCM`), and a recording's file must not change by a sample for it.
@Suite struct SixteenBitPCMTests {
    /// Floats where a conversion goes wrong if it is not libsndfile's: each 16-bit step's edge and the floats either
    /// side of it, halves that round to even (at 65535.5 / 2³¹, up into the next step), the smallest values and
    /// subnormals, full scale and past it, and random bit patterns in −1.5…1.5.
    static var tricky: [Float] {
        var values: [Float] = [0, -0, 1, -1, 1.5, -1.5, 2, -2, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                               .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, 32767 / 32768, -32767 / 32768]
        for step in [-32768, -32767, -1024, -3, -2, -1, 0, 1, 2, 3, 1024, 32766, 32767] {
            let edge = Float(step) / 32768
            values += [edge, edge.nextUp, edge.nextDown, edge.nextUp.nextUp, edge.nextDown.nextDown]
        }
        for integer in [0, 1, 2, 3, 65534, 65535, 65536, 131_071, 131_072, 196_607, 4_194_303, 4_194_304, 8_388_607] {
            for half in [Float(integer) + 0.5, -(Float(integer) + 0.5), Float(integer) + 0.25, Float(integer) - 0.25] {
                values.append(half / 2_147_483_648)
            }
        }
        var random = SeededGenerator(seed: 16)
        while values.count < 200_000 {
            let value = Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &random))
            if value.isFinite, value.magnitude <= 1.5 { values.append(value) }
        }
        return values
    }

    @Test func aSixteenBitFileHoldsWhatLibsndfileMakesOfTheFloats() throws {
        let scratch = try ScratchDirectory()
        let values = Self.tricky
        let ours = try AudioFileWriter(url: scratch.file("ours.wav"), settings: AudioSettings(format: .wav))
        try values.withUnsafeBufferPointer { try ours.write($0) }
        try ours.close()

        // libsndfile converting the same floats itself, with clipping on as the writer had it.
        var info = SF_INFO()
        info.samplerate = 48000
        info.channels = 1
        info.format = Int32(SF_FORMAT_WAV | SF_FORMAT_PCM_16)
        let descriptor = try FileDescriptor.open(
            scratch.path("libsndfile.wav"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
        let theirs = try SndFile(descriptor: descriptor, mode: .write(info))
        theirs.command(Int32(SFC_SET_CLIPPING), int: Int32(SF_TRUE))
        try values.withUnsafeBufferPointer { try theirs.write($0) }
        try theirs.close()

        let expected = try Sox.samples(of: scratch.path("libsndfile.wav"))
        let written = try Sox.samples(of: scratch.path("ours.wav"))
        #expect(expected.count == values.count)
        let differing = expected.indices.filter { $0 >= written.count || written[$0] != expected[$0] }
        let first = differing.prefix(5).map { "\(values[$0]): \($0 < written.count ? written[$0] >> 16 : 0), not \(expected[$0] >> 16)" }
        #expect(written.count == expected.count && differing.isEmpty, "\(differing.count) samples differ: \(first)")
    }

    @Test func nonFiniteSamplesAreSilenceAndFullScaleIsClipped() throws {
        let scratch = try ScratchDirectory()
        let writer = try AudioFileWriter(url: scratch.file("edges.caf"), settings: AudioSettings(format: .caf, channelCount: 2))
        try [Float.nan, .infinity, -.infinity, 0.5, 3, -3].withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        #expect(try Sox.samples(of: scratch.path("edges.caf")).map { $0 >> 16 } == [0, 0, 0, 16384, 32767, -32768])
    }
}
