import ArgumentParser
import AudioIO
import FoundationEssentials
import SystemEdge

extension VoiceMemo {
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cache",
            abstract: "List or empty the cache of downloaded addresses.",
            discussion: """
                What play and import downloaded from http(s) addresses is kept in $XDG_CACHE_HOME/voicememo/http \
                (else ~/.cache/voicememo/http), byte ranges per address. This lists each address played or imported \
                (without a user name or password; an HLS playlist with its segments, in one row), the disk space its \
                bytes take, how much of the file is downloaded, and when it was last used, the most recent first; an \
                address that gave nothing (a download that failed) is not listed; on a terminal the table fits its width (the address shortens in \
                its middle, down to 20 columns, then the last use and the size go). --clear empties it and says how \
                much it freed; a play under way goes on with what it has.

                The cache keeps at most 1G unless --set-size says otherwise, a setting kept in \
                $XDG_CONFIG_HOME/voicememo/cache-size (else ~/.config/voicememo/cache-size); --cache-size on play and \
                import sets it for one run. Past it, the addresses used least recently go first.
                """)

        @Flag(help: "Print what it holds, or with --clear what was freed, as one JSON object.")
        var json = false

        @Flag(help: "Remove everything the cache holds.")
        var clear = false

        // Unconditional, so that `-5` is a size that is wrong rather than an option that is unknown.
        @Option(parsing: .unconditional, help: ArgumentHelp(
            "Keep at most this much, e.g. 500M or 2G (K, M, G, T: powers of 1024), as a setting: from the next download on.", valueName: "size"),
            transform: { try CacheSize.parse($0, option: "--set-size") })
        var setSize: CacheSize?

        func run() async throws {
            let cache = RemoteCache.shared
            if let setSize {
                try setSize.save()
                if !json { print("The cache keeps at most \(setSize.text) from now on (\(CacheSize.settingFile.path.terminalSafe)).") }
            }
            if clear {
                let count = cache.items.count
                let freed = try cache.removeAll()
                if json {
                    print(try MemoJSON.line(Cleared(removed: count, freed: freed)))
                } else {
                    print(count == 0 ? "The cache was empty." : "Removed \(count) address\(count == 1 ? "" : "es") from the cache, freeing \(Describe.size(freed)).")
                }
                return
            }
            let capacity = try setSize ?? CacheSize.setting() ?? CacheSize(bytes: cache.capacity)
            let items = cache.items
            if json {
                print(try MemoJSON.line(Listing(
                    directory: cache.directory.path, capacity: capacity.bytes, sizeOnDisk: items.reduce(0) { $0 + $1.sizeOnDisk },
                    addresses: items.map(Listing.Address.init))))
            } else if setSize == nil {
                printTable(items, capacity: capacity)
            }
        }

        /// The table of `items`, fitted to the terminal's width, and a line of the total.
        private func printTable(_ items: [RemoteCache.Item], capacity: CacheSize) {
            let width = TerminalDisplay.outputColumns
            let total = items.reduce(0) { $0 + $1.sizeOnDisk }
            let summary = items.isEmpty
                ? "The cache is empty; it keeps at most \(capacity.text)."
                : "\(items.count) address\(items.count == 1 ? "" : "es"), \(Describe.size(total)) on disk, of at most \(capacity.text)."
            defer { print(width.map { summary.truncated(toColumns: $0) } ?? summary) }
            guard !items.isEmpty else { return }
            let rows = items.map { item in Column.allCases.map { $0.cell(of: item) } }
            var columns = Column.allCases
            var addressWidth = Int.max
            if let width {
                // The address takes what the other columns leave; they go, the last first, while it would get under 20.
                func others(_ columns: [Column]) -> Int {
                    columns.dropFirst().reduce(0) { sum, column in
                        sum + 2 + rows.reduce(column.heading.terminalColumns) { max($0, $1[column.rawValue].terminalColumns) }
                    }
                }
                while columns.count > 2, width - others(columns) < 20 { columns.removeLast() }
                addressWidth = max(width - others(columns), 1)
            }
            var table = Table(columns: columns.map { column in
                Table.Column(heading: column.heading, alignsRight: column != .address, maximumWidth: column == .address ? addressWidth : .max)
            })
            for row in rows {
                table.append(columns.map { $0 == .address ? Self.shortened(row[$0.rawValue], toColumns: addressWidth) : row[$0.rawValue] })
            }
            print(table.text)
        }

        /// The table's columns, in the order they are dropped from the right when the terminal is narrow.
        private enum Column: Int, CaseIterable {
            case address, downloaded, size, lastUsed

            var heading: String {
                switch self {
                case .address: "ADDRESS"
                case .downloaded: "DOWNLOADED"
                case .size: "SIZE"
                case .lastUsed: "LAST USED"
                }
            }

            /// What the column says of `item`, safe for the terminal.
            func cell(of item: RemoteCache.Item) -> String {
                switch self {
                case .address: RemoteAddress.shown(item.url).terminalSafe
                case .downloaded: Cache.downloaded(item)
                case .size: Describe.size(item.sizeOnDisk)
                case .lastUsed: Describe.date(item.lastUsed)
                }
            }
        }

        /// `address` cut to `columns` in its middle, its end (the file's name) kept rather than its host, which the other
        /// rows share.
        private static func shortened(_ address: String, toColumns columns: Int) -> String {
            // An address is ASCII (percent escapes for the rest): a character a column.
            guard address.count > columns, columns > 4 else { return address }
            let start = (columns - 1) / 3
            return address.prefix(start) + "…" + address.suffix(columns - 1 - start)
        }

        /// `100 %` of a file held whole, `42 % of 4.5 MB` of part of one, the bytes held when its length is unknown, or
        /// `4.5 MB in 91 files` of a playlist and its segments.
        static func downloaded(_ item: RemoteCache.Item) -> String {
            if item.partCount > 0 { return "\(Describe.size(item.loadedBytes)) in \(item.partCount + 1) files" }
            guard let length = item.length, length > 0 else { return Describe.size(item.loadedBytes) }
            let percent = item.loadedBytes * 100 / length
            return item.loadedBytes >= length ? "100 %" : "\(percent) % of \(Describe.size(length))"
        }
    }
}

/// What `cache --json` prints.
private struct Listing: Encodable {
    let directory: String
    /// The most it keeps, in bytes.
    let capacity: Int64
    let sizeOnDisk: Int64
    let addresses: [Address]

    struct Address: Encodable {
        /// Without a user name and password.
        let url: String
        /// The file's length on the server, when known; of a playlist, none (its segments make it up).
        let length: Int64?
        let downloaded: Int64
        let sizeOnDisk: Int64
        let complete: Bool
        let lastUsed: Date
        /// The files read as part of it (an HLS playlist's segments and playlists) whose bytes it holds.
        let parts: Int

        init(_ item: RemoteCache.Item) {
            url = RemoteAddress.shown(item.url)
            let isPlaylist = item.partCount > 0
            length = isPlaylist ? nil : item.length
            downloaded = item.loadedBytes
            sizeOnDisk = item.sizeOnDisk
            complete = !isPlaylist && item.length.map { item.loadedBytes >= $0 } ?? false
            lastUsed = item.lastUsed
            parts = item.partCount
        }
    }
}

/// What `cache --clear --json` prints.
private struct Cleared: Encodable {
    /// The addresses removed.
    let removed: Int
    /// The bytes of disk space freed.
    let freed: Int64
}
