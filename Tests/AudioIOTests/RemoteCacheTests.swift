import AudioIO
import Foundation
import TestSupport
import Testing

/// The cache of downloaded bytes, seen through what it costs the server: bytes kept are not downloaded again, the
/// least recently used address goes first when it is full, a file changed on the server is downloaded anew.
@Suite(.timeLimit(.minutes(1))) struct RemoteCacheTests {
    let scratch: ScratchDirectory

    init() throws {
        scratch = try ScratchDirectory()
    }

    /// `seconds` of noise, 16 kHz mono 16-bit (32 KB a second), served as `name`.
    func serve(_ name: String, seconds: Double, on server: HTTPServer) throws -> [Float] {
        let file = scratch.file(name)
        try Sox.synth(to: file.path, rate: 16000, channels: 1, seconds: seconds, "whitenoise")
        try server.put(file, as: name)
        return try read(file, cache: nil)
    }

    /// Every sample of `url`, through `cache` when it is an address.
    func read(_ url: URL, cache: RemoteCache?) throws -> [Float] {
        let file = try cache.map { try AudioFile(forReading: url, cache: $0) } ?? AudioFile(forReading: url)
        return try file.read(frameCount: Int(file.frameCount))
    }

    @Test func theLeastRecentlyUsedAddressGoesFirstWhenTheCacheIsFull() async throws {
        let server = try HTTPServer()
        // 320 KB each; room for two.
        let samples = try ["a.wav", "b.wav", "c.wav"].map { try serve($0, seconds: 10, on: server) }
        let cache = RemoteCache(directory: scratch.file("cache"), capacity: 700_000)
        for (name, expected, kept) in [("a.wav", samples[0], 1), ("b.wav", samples[1], 2), ("a.wav", samples[0], 2), ("c.wav", samples[2], 2)] {
            #expect(try read(server.url(name), cache: cache) == expected, "\(name)")
            // Once the whole file is listed, and the one to go gone.
            #expect(try await eventually { cache.addresses.first == server.url(name) && cache.byteCount == Int64(kept) * 320_044 },
                    "\(name): \(cache.addresses), \(cache.byteCount) bytes")
        }
        // a was used after b: b went when c came.
        #expect(cache.addresses == [server.url("c.wav"), server.url("a.wav")])
        #expect(server.bodyBytes(of: "/a.wav") == 320_044, "a was downloaded once")
        _ = try read(server.url("b.wav"), cache: cache)
        #expect(server.bodyBytes(of: "/b.wav") == 2 * 320_044, "b again, having gone")
        try cache.removeAll()
        #expect(cache.addresses.isEmpty && cache.byteCount == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: scratch.path("cache")).filter { $0.hasSuffix(".data") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aDownloadReportsItsBytesAsTheyArriveAndOnceWhole() throws {
        // 192 KB at 64 KB/s: three seconds of reports.
        let server = try HTTPServer(rate: "64k")
        let samples = try serve("memo.wav", seconds: 6, on: server)
        let cache = RemoteCache(directory: scratch.file("cache"))
        let copy = scratch.file("copy.wav")
        var reports: [DownloadProgress] = []
        var times: [ContinuousClock.Instant] = []
        try cache.download(server.url("memo.wav"), to: copy) { progress in
            reports.append(progress)
            times.append(.now)
        }
        #expect(try read(copy, cache: nil) == samples)
        let size: Int64 = 192_044
        #expect(reports.last == DownloadProgress(loadedBytes: size, totalBytes: size), "\(reports)")
        #expect(reports.count >= 3, "bytes seen arriving: \(reports.map(\.loadedBytes))")
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.loadedBytes <= $1.loadedBytes && $0 != $1 }, "\(reports)")
        #expect(reports.dropFirst().allSatisfy { $0.totalBytes == size }, "the length, once the server said it")
        // At most ten a second (the last comes as soon as the file is whole).
        let gaps = zip(times, times.dropFirst()).dropLast().map { ($1 - $0) / .seconds(1) }
        #expect(gaps.allSatisfy { $0 >= 0.09 }, "\(gaps)")
    }

    @Test func itemsListWhatIsHeldAndACapacitySetLaterTakesEffectWithTheNextBytes() async throws {
        let server = try HTTPServer()
        let samples = try ["a.wav", "b.wav", "c.wav"].map { try serve($0, seconds: 10, on: server) }
        let cache = RemoteCache(directory: scratch.file("cache"))
        let started = Date()
        for (name, expected) in zip(["a.wav", "b.wav"], samples.prefix(2)) {
            #expect(try read(server.url(name), cache: cache) == expected)
            #expect(try await eventually { cache.items.first?.loadedBytes == 320_044 }, "\(name)")
        }
        let items = cache.items
        #expect(items.map(\.url) == [server.url("b.wav"), server.url("a.wav")], "the most recently used first")
        #expect(items.allSatisfy { $0.length == 320_044 && $0.loadedBytes == 320_044 }, "\(items)")
        #expect(items.allSatisfy { $0.sizeOnDisk >= 320_044 && $0.sizeOnDisk < 400_000 }, "\(items.map(\.sizeOnDisk))")
        #expect(items.allSatisfy { $0.lastUsed.timeIntervalSince(started) > -1 && $0.lastUsed <= Date() })
        #expect(items[0].lastUsed >= items[1].lastUsed)
        // Room for one: the next bytes listed make it, a and b going.
        cache.capacity = 400_000
        #expect(cache.capacity == 400_000)
        #expect(try read(server.url("c.wav"), cache: cache) == samples[2])
        #expect(try await eventually { cache.items.map(\.url) == [server.url("c.wav")] }, "\(cache.items)")
        let freed = try cache.removeAll()
        #expect(freed >= 320_044 && freed < 400_000, "\(freed)")
        #expect(cache.items.isEmpty)
        cache.capacity = -5
        #expect(cache.capacity == 0)
    }

    @Test func aFileChangedOnTheServerIsDownloadedAnew() async throws {
        let server = try HTTPServer()
        let cache = RemoteCache(directory: scratch.file("cache"))
        let first = try serve("memo.wav", seconds: 2, on: server)
        #expect(try read(server.url("memo.wav"), cache: cache) == first)
        #expect(try await eventually { cache.byteCount == 64_044 })
        // Another file under the same name, later: its ETag and Last-Modified change.
        try await Task.sleep(for: .seconds(1.1))
        let second = try serve("memo.wav", seconds: 3, on: server)
        #expect(try read(server.url("memo.wav"), cache: cache) == second)
        #expect(try await eventually { cache.byteCount == 96_044 })
        #expect(try read(server.url("memo.wav"), cache: cache) == second)
        // nginx logs a request once it has answered it: the reader may be done before the line is written.
        #expect(try await eventually { server.requests().last?.status == 304 },
                "the third read only asked: \(server.requests().map(\.status))")
    }

    @Test func aFileHeldWholePlaysWhenTheServerIsGone() async throws {
        let server = try HTTPServer()
        let cache = RemoteCache(directory: scratch.file("cache"))
        let samples = try serve("memo.wav", seconds: 2, on: server)
        #expect(try read(server.url("memo.wav"), cache: cache) == samples)
        #expect(try await eventually { cache.byteCount == 64_044 })
        server.kill()
        #expect(try read(server.url("memo.wav"), cache: cache) == samples)
    }
}
