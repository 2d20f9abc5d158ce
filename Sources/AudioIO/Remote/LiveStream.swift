import Atomics
import FoundationEssentials
import SystemEdge

/// A live stream as it arrives: an Icecast or SHOUTcast station (or any never-ending HTTP body of audio), read once,
/// front to back, and never kept in the cache. Its metadata (`StreamTitle`, asked for with `Icy-MetaData: 1`) is taken
/// out of the audio and kept with the offset in the audio where it came, so that it can be told when that audio is
/// heard.
///
/// A download thread fills a bounded buffer of ``capacity`` bytes. A reader that stops (a paused player) stops the
/// download when the buffer is full; the server then drops the connection, and once the reader has read what is
/// here the stream connects again: it goes on live, and what played meanwhile is skipped, as a radio does. A dropped
/// connection or a network fault connects again the same way, backing off from 0.25 s to 4 s; a stream fails when
/// ``attempts`` tries in a row bring no byte, or at once when the server refuses it (404, 403).
///
/// **Threads**: one thread reads; ``isWaiting`` and ``close()`` from any.
final class LiveStream: @unchecked Sendable {
    /// The address, as given.
    let url: URL
    /// How messages name it: the address without credentials.
    let name: String
    /// True while a read waits for bytes.
    let isWaiting = ManagedAtomic<Bool>(false)
    /// Bytes of audio held at most: a minute of a 128 kb/s station.
    static let capacity = 1 << 20
    /// Tries in a row without a byte before the stream fails.
    static let attempts = 8

    private let connection: HTTPConnection
    private let headers: [String]
    private let firstRetry: Duration
    private let monitor = Monitor()
    // Under `monitor`.
    private var buffer: [UInt8] = []
    /// Where in `buffer` the next read starts.
    private var readIndex = 0
    /// Audio bytes read so far: the offset of the next byte read, in the whole stream.
    private var readOffset: Int64 = 0
    /// Metadata blocks not yet read past, each with the offset of the audio byte it came before.
    private var metadata: [(offset: Int64, value: IcyMetadata)] = []
    private(set) var failure: DownloadError?
    private var isClosed = false
    /// The last metadata kept.
    private var lastMetadata: IcyMetadata?

    /// Starts receiving `url` with the request lines and trust of `options`.
    init(url: URL, name: String, options: AudioAsset.Options, request: (lines: [String], userAgent: String?)) {
        self.url = url
        self.name = name
        headers = request.lines + ["Icy-MetaData: 1"]
        firstRetry = options.timeouts.firstRetry
        connection = HTTPConnection(
            userAgent: request.userAgent ?? HTTPConnection.defaultUserAgent,
            certificateAuthorityFile: options.certificateAuthorityFile?.path, timeouts: options.timeouts)
        SystemThread.detach(name: "audio-live", realtime: false) { [self] in run() }
    }

    deinit { close() }

    /// Stops the download; reads return what is here, then the end.
    func close() {
        monitor.withLock {
            isClosed = true
            monitor.broadcast()
        }
        connection.interrupt()
    }

    /// Reads what is here, up to `into.count` bytes, waiting for at least one; 0 once the stream failed (see
    /// ``failure``) or is closed.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Int {
        guard !destination.isEmpty else { return 0 }
        return monitor.withLock {
            defer { isWaiting.store(false, ordering: .relaxed) }
            while readIndex == buffer.count {
                if failure != nil || isClosed { return 0 }
                isWaiting.store(true, ordering: .relaxed)
                monitor.wait()
            }
            let count = min(destination.count, buffer.count - readIndex)
            buffer.withUnsafeBytes { bytes in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[readIndex..<(readIndex + count)]))
            }
            readIndex += count
            readOffset += Int64(count)
            // Room for the download: what was read goes, in steps of a quarter so that bytes are seldom moved.
            if readIndex >= Self.capacity / 4 {
                buffer.removeFirst(readIndex)
                readIndex = 0
            }
            monitor.broadcast()
            return count
        }
    }

    /// The metadata that came before audio byte `offset` of the stream (the byte being decoded), in order, each once.
    func takeMetadata(before offset: Int64) -> [IcyMetadata] {
        monitor.withLock {
            let due = metadata.prefix { $0.offset <= offset }
            metadata.removeFirst(due.count)
            return due.map(\.value)
        }
    }

    // MARK: The thread

    private func run() {
        var attempt = 0
        while true {
            // Connected again only once there is room: a paused reader keeps what it has.
            let goOn = monitor.withLock { () -> Bool in
                while !isClosed, buffer.count - readIndex >= Self.capacity { monitor.wait() }
                return !isClosed
            }
            guard goOn else { return }
            var received = false
            do {
                _ = try connection.get(url.absoluteString, headers: headers, receive: { [self] head in
                    accept(head)
                }, body: { [self] bytes in
                    received = received || !bytes.isEmpty
                    return take(bytes)
                })
                if monitor.withLock({ failure != nil || isClosed }) { return }
                attempt = received ? 0 : attempt + 1
            } catch {
                if !error.isTransient { return fail(error.error) }
                attempt = received ? 1 : attempt + 1
                if attempt >= Self.attempts { return fail(error.error) }
            }
            if attempt >= Self.attempts { return fail(.connectionLost("the stream sends nothing")) }
            if attempt > 0 {
                // Back-off: 0.25 s doubling to 4 s; closing cuts it short.
                let deadline = ContinuousClock.now + firstRetry * (1 << min(attempt - 1, 4))
                monitor.withLock {
                    while !isClosed, case let left = deadline - .now, left > .zero {
                        monitor.wait(seconds: Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18)
                    }
                }
            }
        }
    }

    /// The demultiplexer of the connection under way; nil when the server sends no metadata.
    private var demultiplexer: IcyDemultiplexer?

    /// Takes a response: a live stream's 200, whose `icy-metaint` says where its metadata is.
    private func accept(_ head: HTTPResponseHead) -> Bool {
        switch head.status {
        case 200:
            demultiplexer = head.fields["icy-metaint"].flatMap { Int($0) }.flatMap { $0 > 0 ? IcyDemultiplexer(interval: $0) : nil }
            return true
        case 404, 410:
            fail(.notFound(status: head.status))
        case 401, 403:
            fail(.forbidden(status: head.status))
        default:
            // A 503 (a full server) is tried again by the thread, as a dropped connection.
            if !(500...599).contains(head.status) { fail(.serverError(status: head.status)) }
        }
        return false
    }

    /// Takes a piece of the body: its audio into the buffer, waiting for room; false to stop (closed).
    private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var audio: [UInt8] = []
        // Each block with the audio bytes of this piece before it.
        var blocks: [(after: Int, value: IcyMetadata)] = []
        if var demultiplexer {
            demultiplexer.split(bytes, audio: { audio.append(contentsOf: $0) }, metadata: { blocks.append((audio.count, IcyMetadata(block: $0))) })
            self.demultiplexer = demultiplexer
        } else {
            audio.append(contentsOf: bytes)
        }
        return monitor.withLock {
            // The stream's offset of the piece's first audio byte: all read, and all waiting to be.
            let start = readOffset + Int64(buffer.count - readIndex)
            for block in blocks where block.value != lastMetadata {
                // A station may say the same again (at each block, or on a new connection): told once.
                metadata.append((start + Int64(block.after), block.value))
                lastMetadata = block.value
            }
            var rest = audio[...]
            while !rest.isEmpty {
                while !isClosed, buffer.count - readIndex >= Self.capacity { monitor.wait() }
                if isClosed { return false }
                let count = min(rest.count, Self.capacity - (buffer.count - readIndex))
                buffer.append(contentsOf: rest.prefix(count))
                rest = rest.dropFirst(count)
                monitor.broadcast()
            }
            return !isClosed
        }
    }

    private func fail(_ error: DownloadError) {
        monitor.withLock {
            if failure == nil, !isClosed { failure = error }
            monitor.broadcast()
        }
    }
}
