import Atomics
import FoundationEssentials
import Synchronization
import SystemEdge
import SystemPackage

/// The bytes of one address, readable at any offset while they download: a read of bytes not yet here blocks until
/// they are, and one far from where the download is sends a range request for them at once. They come from a
/// ``ByteSource``: an `http` or `https` server, or the app's ``AssetResourceLoaderDelegate`` for another scheme (its
/// answers put in HTTP's terms, so that everything below holds for both).
///
/// One thread per address downloads into a ``RemoteCache`` data file: first what a reader waits for, then onward from
/// where reading last ended — to the end of the file while a player holds a ``WholeDownloadClaim`` (it plays the
/// address), else ``readAheadBytes`` further, and as far as ``prefetch(upTo:)`` asked (a queue's next item): an asset
/// loaded for its length fetches its header, not a whole episode. What lies before is downloaded only when a reader asks for it (a
/// seek back) or ``loadAll(reporting:)`` does (an import): a start into a long podcast fetches from there on. Bytes already in the cache are checked with the server once (`If-Range`,
/// `If-None-Match`) and not downloaded again. A server that ignores ranges is read from the start, linearly. A
/// connection that drops or stalls is resumed with a range request from the first byte missing, retried with back-off
/// (0.25 s doubling to 4 s, 8 tries without a new byte between them); a 404, 403, 416, a host that does not exist, a
/// certificate not trusted or lengths that disagree fail at once. Every request carries the header fields of the asset's
/// ``AudioAsset/Options``.
///
/// Every process shares one asset per address, options and cache (``open(_:options:cache:)``); it stops downloading
/// when the last user lets it go.
///
/// **Thread safety**: every member may be used from any thread; reads block only their caller.
final class RemoteAsset: @unchecked Sendable {
    /// The address, as given.
    let url: URL
    /// Its request headers and trust: a live stream's connection (``LiveStream``) is made with them too, and a playlist's
    /// segments (HLS) are downloaded with them.
    let options: AudioAsset.Options
    /// Where its bytes are kept, and a playlist's segments'.
    let cache: RemoteCache
    private let download: Download

    private init(url: URL, options: AudioAsset.Options, cache: RemoteCache, download: Download) {
        self.url = url
        self.options = options
        self.cache = cache
        self.download = download
    }

    deinit { download.close() }

    /// The shared asset of `url` with `options` in `cache`, started when no one has it yet: an `http` or `https`
    /// address downloads with libcurl, any other scheme's bytes come from the delegate of `options`' resource loader.
    ///
    /// - Throws: ``AudioFileError`` with ``DownloadError/unsupportedAddress(_:)`` for an address that is neither http
    ///   nor https and has no resource loader, ``DownloadError/invalidHeaderField(_:)`` for a header field of `options`
    ///   that cannot be sent, `unsupported` when libcurl cannot be loaded, or when not even a temporary file can hold
    ///   the bytes.
    ///
    /// A `fresh` asset is never one already open: its bytes the cache holds are checked with the server (a live
    /// playlist, rewritten as it goes, is fetched anew each time its demuxer opens it). An address read as part of
    /// another (an HLS playlist's segment) is listed in the cache under that one, `partOf`.
    static func open(
        _ url: URL, options: AudioAsset.Options, cache: RemoteCache, fresh: Bool = false, partOf: URL? = nil
    ) throws(AudioFileError) -> RemoteAsset {
        let name = displayName(of: url)
        let key: String
        let makeSource: () -> any ByteSource
        if isHTTP(url), url.host != nil {
            let request: (lines: [String], userAgent: String?)
            do {
                request = try options.request()
            } catch {
                throw AudioFileError(path: name, reason: .downloadFailed(error))
            }
            if let missing = HTTPConnection.libraryFailure {
                throw AudioFileError(path: name, reason: .unsupported(MissingLibraryError.libcurl(reason: missing).description))
            }
            // Assets with other headers download apart: each request carries its opener's fields, never another's. So do
            // those trusting other CAs, or waiting other times.
            let trust = options.certificateAuthorityFile?.path ?? ""
            key = ([cache.directory.path, url.absoluteString, request.userAgent ?? "", trust, "\(options.timeouts)"] + request.lines)
                .joined(separator: "\n")
            makeSource = {
                let connection = HTTPConnection(
                    userAgent: request.userAgent ?? HTTPConnection.defaultUserAgent,
                    certificateAuthorityFile: options.certificateAuthorityFile?.path, timeouts: options.timeouts)
                return HTTPByteSource(url: url, headers: request.lines, connection: connection)
            }
        } else if isRemote(url), !isHTTP(url), let loader = options.resourceLoader?.loader {
            // Each asset's loader answers for its own assets: another's delegate may decrypt with another key.
            key = [cache.directory.path, url.absoluteString, "loader \(ObjectIdentifier(loader).hashValue)"].joined(separator: "\n")
            makeSource = { LoaderByteSource(url: url, loader: loader) }
        } else {
            throw AudioFileError(path: name, reason: .downloadFailed(.unsupportedAddress("'\(name)'")))
        }
        return try registry.withLock { (assets: inout [String: Weak]) throws(AudioFileError) -> RemoteAsset in
            // One that failed is not shared: opening again is trying again.
            if !fresh, let asset = assets[key]?.asset, asset.progress.failure == nil { return asset }
            assets = assets.filter { $0.value.asset != nil }
            let held = try cache.take(url.absoluteString, partOf: partOf?.absoluteString)
            let download = Download(url: url, name: name, source: makeSource(), firstRetry: options.timeouts.firstRetry, cache: cache, held: held)
            let asset = RemoteAsset(url: url, options: options, cache: cache, download: download)
            assets[key] = Weak(asset: asset)
            asset.download.start()
            return asset
        }
    }

    private struct Weak {
        weak var asset: RemoteAsset?
    }

    private static let registry = Mutex<[String: Weak]>([:])

    /// Whether `url` is an address rather than a file: any scheme but `file`. An `http` or `https` address downloads;
    /// another scheme's bytes come from its asset's resource loader.
    static func isRemote(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme != "file"
    }

    /// Whether `url` is one libcurl downloads: `http` or `https`.
    static func isHTTP(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// `url` as messages show it: without a user name and password.
    static func displayName(of url: URL) -> String {
        let text = url.absoluteString
        guard let scheme = text.firstRange(of: "://") else { return text }
        let authorityEnd = text[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        guard let at = text[scheme.upperBound..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<scheme.upperBound] + text[text.index(after: at)...])
    }

    /// How messages name it: the address without credentials.
    var name: String { download.name }

    /// The file's length in bytes, waiting for the server's first answer.
    func length() throws(DownloadError) -> Int64 { try download.length() }

    /// Reads up to `buffer.count` bytes at `offset`, waiting for them to download; 0 at the end, and once `cancelled`
    /// is set (see ``wakeReaders()``). `waiting`, when given, is true while the call waits for bytes.
    func read(
        at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, waiting: ManagedAtomic<Bool>? = nil,
        cancelled: ManagedAtomic<Bool>? = nil
    ) throws(DownloadError) -> Int {
        try download.read(at: offset, into: buffer, waiting: waiting, cancelled: cancelled)
    }

    /// Wakes every read waiting for bytes, to look at its `cancelled` flag.
    func wakeReaders() { download.wakeReaders() }

    /// What is here now: the byte ranges, the length once known, and whether the download failed.
    var progress: Progress { download.progress }

    /// What of the file is here, at one moment.
    struct Progress: Equatable {
        /// The bytes downloaded (by this process, or listed in the cache).
        var loaded: ByteRanges
        /// The file's length, once the server said it.
        var length: Int64?
        /// Where the last read ended: the reader's position.
        var readEnd: Int64
        /// Why the download stopped, if it failed.
        var failure: DownloadError?

        /// Whether every byte from where reading is to the end of the file is here: reading on needs nothing more.
        var isLoadedToEnd: Bool { length.map { readEnd >= $0 || loaded.end(ofRunAt: readEnd) >= $0 } ?? false }
        /// Bytes here from where reading is, without a gap.
        var bytesAhead: Int64 { loaded.end(ofRunAt: readEnd) - readEnd }
    }

    /// Waits until every byte is here (downloading all of it), or the download fails; tells `report`, on the calling
    /// thread, what is here whenever it changed, at most ten times a second, and once at the end.
    func loadAll(reporting report: ((DownloadProgress) -> Void)? = nil) throws(DownloadError) {
        try download.loadAll(reporting: report)
    }

    /// Bytes fetched past where reading last ended while no one claims the whole file: a reader that reads on keeps
    /// the transfer going; one that stops (a header read) costs this much more at most.
    static let readAheadBytes: Int64 = 256 * 1024

    /// Keeps the download going to the end of the file for as long as the claim is held: what a player holds while it
    /// plays the address.
    func claimWhole() -> WholeDownloadClaim {
        download.changeWholeClaims(by: 1)
        return WholeDownloadClaim { [download] in download.changeWholeClaims(by: -1) }
    }

    /// Fetches the file's first `offset` bytes, though no one reads them yet: a queue's next item, so that it starts
    /// without a wait. A smaller offset than one asked before changes nothing.
    func prefetch(upTo offset: Int64) { download.prefetch(upTo: offset) }

    /// Bytes this process downloaded for it so far (not those the cache had).
    var bytesDownloaded: Int64 { download.bytesDownloaded.load(ordering: .relaxed) }
}

/// A player's claim on an address's whole download (``RemoteAsset/claimWhole()``), let go when it is released.
final class WholeDownloadClaim: Sendable {
    private let release: @Sendable () -> Void

    fileprivate init(release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    deinit { release() }
}

/// The downloading half of a ``RemoteAsset``: its state, its thread and its connection. The thread holds it, so
/// the asset can go (and close it) while the thread ends.
private final class Download: @unchecked Sendable {
    let url: URL
    let name: String
    private let cache: RemoteCache
    private let source: any ByteSource
    /// The first back-off after a failed transfer.
    private let firstRetry: Duration
    private let monitor = Monitor()
    let bytesDownloaded = ManagedAtomic<Int64>(0)

    // Under `monitor`.
    private var held: RemoteCache.Held
    private var fileLength: Int64?
    private var entityTag: String?
    private var lastModified: String?
    private var loaded: ByteRanges
    /// What the cache lists as synced; `loaded` beyond it is waiting for the next commit.
    private var committed: ByteRanges
    /// Whether bytes the cache had are confirmed by the server (or could not be checked and are used as they are).
    private var isSettled: Bool
    private var supportsRanges = true
    private var failure: DownloadError?
    /// The offset a reader waits for.
    private var demand: Int64?
    private var readEnd: Int64 = 0
    /// Whether a reader has read any byte: a change of the file on the server is then an error, not a fresh start.
    private var hasBeenRead = false
    /// Whether ``loadAll(reporting:)`` asked for every byte, also those before where reading is.
    private var isWholeWanted = false
    /// The ``WholeDownloadClaim``s held.
    private var wholeClaims = 0
    /// How far ``prefetch(upTo:)`` asked to fetch.
    private var prefetchEnd: Int64 = 0
    private var isClosed = false
    /// Where the transfer under way writes next, while one runs.
    private var writing: Int64?
    /// Whether the server has answered a request (any status).
    private var hasAnswered = false

    /// Seconds of the transfer a reader waits for bytes ahead of where it is, rather than asking for them anew: a
    /// reader that only runs a little ahead (a decoder faster than the download) must not throw away what is on its
    /// way, and one that seeks far must not wait.
    static let jumpSeconds = 1.0
    /// The download's rate in bytes a second, measured over the transfer under way (a guess before the first).
    private var rate: Double = 64 * 1024

    /// Bytes a reader may want beyond where the transfer is and still wait for it rather than jump: what a second of
    /// it brings, 64 KiB at least. Under the lock.
    private var jumpDistance: Int64 { max(64 * 1024, Int64(rate * Self.jumpSeconds)) }
    /// Bytes or seconds between two commits to the cache.
    static let commitBytes: Int64 = 256 * 1024
    static let commitSeconds = 1.0
    /// Tries without a byte arriving before a transient failure is final.
    static let attempts = 8

    init(url: URL, name: String, source: any ByteSource, firstRetry: Duration, cache: RemoteCache, held: RemoteCache.Held) {
        self.url = url
        self.name = name
        self.source = source
        self.firstRetry = firstRetry
        self.cache = cache
        self.held = held
        let entry = held.entry
        fileLength = entry?.length
        entityTag = entry?.entityTag
        lastModified = entry?.lastModified
        loaded = entry?.ranges ?? ByteRanges()
        committed = loaded
        isSettled = loaded.isEmpty
    }

    func start() {
        SystemThread.detach(name: "audio-download", realtime: false) { [self] in run() }
    }

    func close() {
        monitor.withLock {
            isClosed = true
            monitor.broadcast()
        }
        source.interrupt()
    }

    var progress: RemoteAsset.Progress {
        monitor.withLock { RemoteAsset.Progress(loaded: loaded, length: fileLength, readEnd: readEnd, failure: failure) }
    }

    // MARK: Readers

    func length() throws(DownloadError) -> Int64 {
        try monitor.withLock { () throws(DownloadError) -> Int64 in
            while true {
                if let failure { throw failure }
                if isSettled, let fileLength { return fileLength }
                if demand == nil { demand = 0 }
                monitor.broadcast()
                monitor.wait()
            }
        }
    }

    func wakeReaders() {
        monitor.withLock { monitor.broadcast() }
    }

    func read(
        at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, waiting: ManagedAtomic<Bool>?, cancelled: ManagedAtomic<Bool>?
    ) throws(DownloadError) -> Int {
        guard !buffer.isEmpty else { return 0 }
        let (file, count) = try monitor.withLock { () throws(DownloadError) -> (RemoteCache.Held?, Int) in
            defer { waiting?.store(false, ordering: .relaxed) }
            while true {
                if let failure { throw failure }
                if cancelled?.load(ordering: .acquiring) == true { return (nil, 0) }
                if isSettled {
                    if let fileLength, offset >= fileLength { return (nil, 0) }
                    if loaded.contains(offset) {
                        let count = Int(min(Int64(buffer.count), loaded.end(ofRunAt: offset) - offset))
                        readEnd = offset + Int64(count)
                        // Read on far enough: the thread may ask for more.
                        if writing == nil, let fileLength, fetchesAhead(length: fileLength) { monitor.broadcast() }
                        hasBeenRead = true
                        if demand == offset { demand = nil }
                        return (held, count)
                    }
                }
                if demand != offset {
                    demand = offset
                    monitor.broadcast()
                    // A transfer far from the offset is stopped, and the thread asks for the offset's range.
                    if let writing, supportsRanges, offset < writing || offset > writing + jumpDistance {
                        source.interrupt()
                    }
                }
                waiting?.store(true, ordering: .relaxed)
                monitor.wait()
            }
        }
        guard let file else { return 0 }
        var done = 0
        while done < count {
            let got: Int
            do {
                got = try file.descriptor.read(
                    fromAbsoluteOffset: offset + Int64(done), into: UnsafeMutableRawBufferPointer(rebasing: buffer[done..<count]))
            } catch {
                throw .connectionLost("the downloaded bytes could not be read back: \(error)")
            }
            guard got > 0 else { throw .connectionLost("the downloaded bytes could not be read back: the file is short") }
            done += got
        }
        return count
    }

    func changeWholeClaims(by change: Int) {
        monitor.withLock {
            wholeClaims += change
            monitor.broadcast()
        }
    }

    func prefetch(upTo offset: Int64) {
        monitor.withLock {
            guard offset > prefetchEnd else { return }
            prefetchEnd = offset
            monitor.broadcast()
        }
    }

    /// Where fetching stops when no reader waits: nil for the end of the file. Under the lock.
    private var fetchEnd: Int64? {
        wholeClaims > 0 || isWholeWanted ? nil : max(prefetchEnd, readEnd + RemoteAsset.readAheadBytes)
    }

    /// Whether enough is missing before ``fetchEnd`` to ask for it: half a window at least, or the file's rest, so that a
    /// reader reading on is served by requests of 128 KiB or more, not one per read. Under the lock.
    private func fetchesAhead(length: Int64) -> Bool {
        guard let end = fetchEnd.map({ min($0, length) }) else { return true }
        return end == length || end - loaded.end(ofRunAt: readEnd) >= RemoteAsset.readAheadBytes / 2
    }

    func loadAll(reporting report: ((DownloadProgress) -> Void)?) throws(DownloadError) {
        monitor.withLock {
            isWholeWanted = true
            monitor.broadcast()
        }
        var reported: DownloadProgress?
        while true {
            // Each piece that arrives wakes the lock's waiters: the report waits for its tenth of a second regardless.
            let deadline = ContinuousClock.now + .milliseconds(100)
            let (progress, isDone) = try monitor.withLock { () throws(DownloadError) -> (DownloadProgress, Bool) in
                while true {
                    if let failure { throw failure }
                    let isDone = isSettled && fileLength.map { loaded.covers(length: $0) } ?? false
                    let left = deadline - .now
                    if isDone || report != nil && left <= .zero {
                        return (DownloadProgress(loadedBytes: loaded.byteCount, totalBytes: fileLength), isDone)
                    }
                    monitor.wait(seconds: report == nil ? .infinity : left / .seconds(1))
                }
            }
            if let report, progress != reported {
                report(progress)
                reported = progress
            }
            if isDone { return }
        }
    }

    // MARK: The thread

    /// A request to make, and where its body goes.
    private struct Plan {
        /// The first byte asked for (0 for the whole file).
        var start: Int64
        /// The byte after the last one wanted, when the request asks for a bounded range.
        var end: Int64?
        var request: ByteRequest
        /// A request that only checks bytes the cache holds whole: no body is wanted unless the file changed.
        var isCheck: Bool
    }

    private func run() {
        var attempt = 0
        var idleRounds = 0
        var lastError: DownloadError?
        while true {
            guard let plan = monitor.withLock({ () -> Plan? in
                while !isClosed {
                    if let plan = nextPlan() { return plan }
                    monitor.wait()
                }
                return nil
            }) else { break }
            let before = bytesDownloaded.load(ordering: .relaxed)
            let coveredBefore = monitor.withLock { loaded.byteCount }
            do {
                try perform(plan)
                if plan.isCheck || bytesDownloaded.load(ordering: .relaxed) > before {
                    idleRounds = 0
                } else {
                    // Answered, but with nothing: a server that keeps doing so fails rather than being asked forever.
                    idleRounds += 1
                    if idleRounds >= 4 * Self.attempts {
                        monitor.withLock {
                            failure = .connectionLost("the server sends no bytes")
                            monitor.broadcast()
                        }
                        break
                    }
                }
            } catch {
                // Before the failure is told: whoever hears of it finds no entry left.
                if error.error == .liveStream { cache.forget(monitor.withLock { held }) }
                commit()
                // New bytes, not bytes again: a server without ranges that always drops at one point sends the same
                // start each time, and would be tried forever.
                let arrived = monitor.withLock { loaded.byteCount } > coveredBefore
                attempt = arrived ? 1 : attempt + 1
                lastError = error.error
                // Nor is an app's loader that refuses or fails: its answer is the truth about the bytes, not a network's.
                let refused = switch error.error {
                case .forbidden, .loaderRefused, .loaderFailed: true
                default: false
                }
                let giveUp = monitor.withLock { () -> Bool in
                    // A server that refuses these headers (401, 403) is not gone: the bytes are not theirs to have.
                    if plan.isCheck, !refused {
                        // The server cannot be asked: what the cache holds whole is used as it is.
                        isSettled = true
                        monitor.broadcast()
                        return false
                    }
                    // A server that never answered is not waited for, as curl does not retry a refused connection.
                    if !error.isTransient || attempt >= Self.attempts || !hasAnswered {
                        failure = lastError
                        monitor.broadcast()
                        return true
                    }
                    // Back-off: 0.25 s doubling to 4 s; closing cuts it short.
                    let deadline = ContinuousClock.now + firstRetry * (1 << min(attempt - 1, 4))
                    while !isClosed, case let left = deadline - .now, left > .zero {
                        monitor.wait(seconds: Double(left.components.seconds) + Double(left.components.attoseconds) * 1e-18)
                    }
                    return false
                }
                if giveUp { break }
            }
        }
        commit()
    }

    /// The next request, or nil when there is nothing to download (the file is whole, or failed). Under the lock.
    private func nextPlan() -> Plan? {
        guard failure == nil else { return nil }
        // Bytes the cache holds without a validator cannot be checked with the server: downloaded again.
        if !isSettled, entityTag == nil, lastModified == nil { loaded = ByteRanges() }
        if !isSettled, let fileLength, loaded.covers(length: fileLength) {
            let check = ByteRequest(ifNoneMatch: entityTag, ifModifiedSince: lastModified)
            return Plan(start: 0, end: nil, request: check, isCheck: true)
        }
        guard supportsRanges else {
            if let fileLength, loaded.covers(length: fileLength) { return nil }
            return Plan(start: 0, end: nil, request: ByteRequest(), isCheck: false)
        }
        let gap: Range<Int64>?
        if let length = fileLength {
            // What lies before the reader is fetched when asked for, or to check with the server bytes the cache had.
            let ahead = fetchesAhead(length: length) ? fetchEnd.map { min($0, length) } ?? length : readEnd
            gap = demand.flatMap { loaded.firstGap(from: $0, below: length) } ?? loaded.firstGap(from: readEnd, below: ahead)
                ?? (isWholeWanted || !isSettled ? loaded.firstGap(from: 0, below: length) : nil)
            if gap == nil, !loaded.covers(length: length) { return nil }
        } else {
            // The length comes with the first answer; a reader's offset, else the start, until then.
            let start = demand ?? 0
            let next = loaded.ranges.first { $0.lowerBound > start }?.lowerBound
            gap = start..<(next ?? Int64.max)
        }
        guard var gap else { isSettled = true; return nil }
        // Not claimed whole: a bounded range, so that nothing is sent past where fetching stops.
        // A gap past that (after bytes the cache holds) gets a read-ahead's worth.
        if let end = fetchEnd.map({ max($0, (demand ?? 0) + RemoteAsset.readAheadBytes) }) {
            gap = gap.lowerBound..<min(gap.upperBound, max(end, gap.lowerBound + RemoteAsset.readAheadBytes))
        }
        let end = gap.upperBound == Int64.max ? nil : gap.upperBound
        let request = ByteRequest(range: (gap.lowerBound, end), ifRange: loaded.isEmpty ? nil : entityTag ?? lastModified)
        return Plan(start: gap.lowerBound, end: end, request: request, isCheck: false)
    }

    /// Runs `plan`'s request, writing what arrives and committing it as it goes.
    private func perform(_ plan: Plan) throws(TransferFailure) {
        var position = plan.start
        var refusal: TransferFailure?
        var lastCommit = ContinuousClock.now
        var sinceCommit: Int64 = 0
        var started: ContinuousClock.Instant?
        var received: Int64 = 0
        var file = monitor.withLock { held }
        let end = try source.get(plan.request, receive: { head in
            self.monitor.withLock {
                defer { self.monitor.broadcast() }
                switch self.accept(head, plan: plan) {
                case .body(let start):
                    position = start
                    file = self.held
                    self.writing = start
                    return true
                case .noBody:
                    return false
                case .failed(let failure):
                    refusal = failure
                    return false
                }
            }
        }, body: { bytes in
            var written = 0
            while written < bytes.count {
                do {
                    written += try file.descriptor.write(
                        toAbsoluteOffset: position + Int64(written), UnsafeRawBufferPointer(rebasing: bytes[written...]))
                } catch {
                    refusal = TransferFailure(error: .connectionLost("the download could not be written: \(error)"), isTransient: false)
                    return false
                }
            }
            let range = position..<(position + Int64(bytes.count))
            position = range.upperBound
            sinceCommit += Int64(bytes.count)
            self.bytesDownloaded.wrappingIncrement(by: Int64(bytes.count), ordering: .relaxed)
            received += Int64(bytes.count)
            let elapsed = started.map { (ContinuousClock.now - $0) / .seconds(1) } ?? 0
            if started == nil { started = .now }
            let goOn = self.monitor.withLock { () -> Bool in
                self.loaded.insert(range)
                self.writing = position
                if elapsed > 0.2 { self.rate = Double(received) / elapsed }
                self.monitor.broadcast()
                if self.isClosed { return false }
                if self.supportsRanges, let end = plan.end, position >= end { return false }
                if let length = self.fileLength, position >= length { return false }
                // Bytes the cache or an earlier transfer has: the next request starts after them.
                if self.supportsRanges, self.loaded.end(ofRunAt: position) > position { return false }
                if let demand = self.demand, !self.loaded.contains(demand), self.supportsRanges,
                   demand < position || demand > position + self.jumpDistance {
                    return false
                }
                return true
            }
            if sinceCommit >= Self.commitBytes || ContinuousClock.now - lastCommit >= .seconds(Self.commitSeconds) {
                self.commit()
                sinceCommit = 0
                lastCommit = .now
            }
            return goOn
        })
        monitor.withLock { writing = nil }
        commit()
        if let refusal { throw refusal }
        if end == .completed, !plan.isCheck, monitor.withLock({ fileLength == nil }) {
            // A body without a stated length: its end is the file's.
            monitor.withLock {
                fileLength = position
                isSettled = true
                monitor.broadcast()
            }
        }
    }

    private enum Acceptance {
        case body(startingAt: Int64)
        case noBody
        case failed(TransferFailure)
    }

    /// What to do with a response to `plan`: take its body (from which offset), none, or fail. Under the lock.
    private func accept(_ head: HTTPResponseHead, plan: Plan) -> Acceptance {
        hasAnswered = true
        switch head.status {
        case 304:
            isSettled = true
            return .noBody
        case 206:
            guard let range = head.contentRange, range.first == plan.start else {
                return .failed(TransferFailure(error: .connectionLost("the server sent another range than the one asked for"), isTransient: true))
            }
            // One of the two is wrong, and which cannot be told: no byte of it is written.
            if let length = head.contentLength, length != range.last - range.first + 1 {
                return .failed(TransferFailure(error: .wrongLength(said: length, sent: range.last - range.first + 1), isTransient: false))
            }
            if isSettled, hasBeenRead, isDifferentVersion(head) { return changed() }
            note(head)
            if let total = range.total { fileLength = total }
            isSettled = true
            return .body(startingAt: range.first)
        case 200 where head.isLiveStream:
            // Never ends: played as it comes (``LiveStream``), never cached.
            return .failed(TransferFailure(error: .liveStream, isTransient: false))
        case 200:
            // The whole file: the server ignores ranges, or (If-Range, If-None-Match) the file changed.
            let changedVersion = !loaded.isEmpty && isDifferentVersion(head) || plan.isCheck
            if changedVersion {
                if hasBeenRead { return changed() }
                do {
                    held = try cache.renew(held)
                } catch {
                    return .failed(TransferFailure(error: .connectionLost("\(error)"), isTransient: false))
                }
                loaded = ByteRanges()
                committed = ByteRanges()
            } else if plan.start > 0 || head.fields["accept-ranges"] == "none" {
                supportsRanges = false
            }
            note(head)
            fileLength = head.contentLength
            isSettled = true
            return .body(startingAt: 0)
        case 416:
            // Nothing at or after the start. A file ending before the length it gave is a length that was wrong, unless
            // the 416 names another version (a 416 seldom names one): then a file that shrank.
            let another = head.entityTag.map { $0 != entityTag } ?? false || head.lastModified.map { $0 != lastModified } ?? false
            if let fileLength, let total = head.unsatisfiedRangeTotal, total < fileLength, !another {
                return .failed(TransferFailure(error: .wrongLength(said: fileLength, sent: total), isTransient: false))
            }
            if loaded.isEmpty { return .failed(TransferFailure(error: .rangeNotSatisfiable, isTransient: false)) }
            return hasBeenRead ? changed() : .failed(TransferFailure(error: .changedOnServer, isTransient: true))
        case 404, 410:
            return .failed(TransferFailure(error: .notFound(status: head.status), isTransient: false))
        case 401, 403:
            return .failed(TransferFailure(error: .forbidden(status: head.status), isTransient: false))
        case 408, 425, 429, 500...599:
            return .failed(TransferFailure(error: .serverError(status: head.status), isTransient: true))
        default:
            return .failed(TransferFailure(error: .serverError(status: head.status), isTransient: false))
        }
    }

    /// Whether `head`'s validators say another version than the one the bytes here are of.
    private func isDifferentVersion(_ head: HTTPResponseHead) -> Bool {
        if let entityTag, let theirs = head.entityTag { return entityTag != theirs }
        if let lastModified, let theirs = head.lastModified { return lastModified != theirs }
        // A validator on one side only: the same file cannot be told.
        return entityTag != nil || lastModified != nil
    }

    private func changed() -> Acceptance {
        .failed(TransferFailure(error: .changedOnServer, isTransient: false))
    }

    private func note(_ head: HTTPResponseHead) {
        entityTag = head.entityTag
        lastModified = head.lastModified
    }

    /// Syncs what was written and lists it in the cache; takes in what other processes listed of the same file.
    private func commit() {
        let (file, ranges, length, entityTag, lastModified) = monitor.withLock { (held, loaded, fileLength, self.entityTag, self.lastModified) }
        guard file.file != nil, ranges != monitor.withLock({ committed }) else { return }
        // Listed only once on the disk: bytes that could not be synced wait for the next commit.
        guard (try? file.descriptor.syncData()) != nil else { return }
        let listed = cache.commit(file, ranges: ranges, length: length, entityTag: entityTag, lastModified: lastModified)
        monitor.withLock {
            guard held === file else { return }
            if let listed {
                loaded.formUnion(listed)
                committed = listed
            } else {
                // No longer the cache's: the bytes stay this process's own.
                committed = loaded
            }
        }
    }
}
