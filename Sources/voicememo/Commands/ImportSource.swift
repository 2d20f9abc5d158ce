import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// One file `voicememo import` takes in: named on the command line, found in a directory named there, standard
/// input (`-`), saved to a private temporary file first, or an `http` or `https` address, downloaded (through the
/// cache) to one when its turn comes.
struct ImportSource {
    /// What the file is called in messages: its path as given or found, "standard input", or the address.
    let name: String
    /// The file to read, or the address to download.
    let url: URL
    /// The title when neither `--title` nor the file's tags give one; `nil` takes the file's name.
    let defaultTitle: String?

    /// The sources `arguments` name, in order: a file as it is (whatever its name), a directory as the audio files
    /// under it (every level down, by their extensions, hidden ones and the store's own skipped, sorted by path), `-`
    /// as standard input.
    ///
    /// - Throws: ``AudioFileError`` for a directory that cannot be listed, ``StandardInputError`` for a terminal.
    static func sources(_ arguments: [String], store: URL, spool: inout StandardInputSpool?) throws -> [ImportSource] {
        var sources: [ImportSource] = []
        for argument in arguments {
            if let address = RemoteAddress.url(from: argument) {
                sources.append(ImportSource(name: argument, url: address, defaultTitle: nil))
                continue
            }
            if argument == "-" {
                if spool == nil { spool = try StandardInputSpool() }
                sources.append(ImportSource(name: "standard input", url: spool!.url, defaultTitle: "Memo \(Describe.date(Date()))"))
                continue
            }
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory else {
                sources.append(ImportSource(name: argument, url: URL(fileURLWithPath: argument), defaultTitle: nil))
                continue
            }
            // The memos' own files, when the store is in the directory, are memos already.
            let storePath = store.standardizedFileURL.resolvingSymlinksInPath().path + "/"
            sources += try audioFiles(under: argument)
                .filter { !URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path.hasPrefix(storePath) }
                .map { ImportSource(name: $0, url: URL(fileURLWithPath: $0), defaultTitle: nil) }
        }
        return sources
    }

    /// The audio files under `directory`, at every depth, sorted; hidden files and directories are left out.
    private static func audioFiles(under directory: String) throws(AudioFileError) -> [String] {
        let subpaths: [String]
        do {
            subpaths = try FileManager.default.subpathsOfDirectory(atPath: directory)
        } catch {
            throw AudioFileError(path: directory, reason: .permissionDenied)
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return subpaths.filter { subpath in
            let components = subpath.split(separator: "/")
            guard !components.contains(where: { $0.hasPrefix(".") }), let name = components.last,
                  let dot = name.lastIndex(of: "."),
                  AudioFile.readableFileExtensions.contains(name[name.index(after: dot)...].lowercased())
            else { return false }
            var isDirectory = false
            return FileManager.default.fileExists(atPath: prefix + subpath, isDirectory: &isDirectory) && !isDirectory
        }.sorted().map { prefix + $0 }
    }
}

/// A private temporary directory (0700) holding one file, `name` (0600, made by its owner), removed with it when
/// released: where standard input and downloads wait to be imported.
final class Spool {
    /// The file's path.
    let url: URL
    private let directory: URL

    init(name: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "voicememo-import-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        url = directory.appendingPathComponent(name)
    }

    /// The whole file at `address`, asked for with `options`, downloaded through the cache into a spool named as the
    /// address names it (so that a memo without a title of its own is titled after it); `report` is told how far it
    /// has come.
    ///
    /// - Throws: `AudioFileError` when the download fails (nothing is left behind).
    static func download(_ address: URL, options: AudioAsset.Options, report: DownloadReport) throws -> Spool {
        var name = String(RemoteAddress.name(of: address).map { $0 == "/" ? "_" : $0 })
        if name.hasPrefix(".") { name = "download" + name }
        let spool = try Spool(name: name)
        try RemoteCache.shared.download(address, options: options, to: spool.url, progress: report.update)
        report.finish()
        let head = try? { () throws -> [UInt8] in
            let file = try FileDescriptor.open(spool.url.path, .readOnly, options: .closeOnExec)
            return try file.closeAfter {
                var bytes = [UInt8](repeating: 0, count: 7)
                let count = try bytes.withUnsafeMutableBytes { try file.read(into: $0) }
                return Array(bytes.prefix(count))
            }
        }()
        if head == Array("#EXTM3U".utf8) { throw PlaylistImport(address: address) }
        return spool
    }

    /// An address that is an HLS playlist: segments a player joins, not one file to keep.
    struct PlaylistImport: Error, CustomStringConvertible {
        let address: URL

        var description: String {
            "cannot import '\(RemoteAddress.shown(address).terminalSafe)': it is an HLS playlist of segments, not one file; play it instead"
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Standard input read to the end into a spool file, removed when released.
final class StandardInputSpool {
    private let spool: Spool
    var url: URL { spool.url }

    init() throws {
        guard Terminal(.standardInput) == nil else { throw StandardInputError.terminal }
        spool = try Spool(name: "standard input")
        do {
            let file = try FileDescriptor.open(spool.url.path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: .ownerReadWrite)
            try file.closeAfter {
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let count = try buffer.withUnsafeMutableBytes { try FileDescriptor.standardInput.read(into: $0, retryOnInterrupt: true) }
                    if count == 0 { break }
                    try file.writeAll(buffer[..<count])
                }
            }
        } catch let error as Errno {
            throw StandardInputError.failed(error.description)
        }
    }
}

/// Why standard input could not be taken in.
enum StandardInputError: Error, CustomStringConvertible {
    case terminal
    case failed(String)

    var description: String {
        switch self {
        case .terminal: "standard input is a terminal; pipe an audio file into it, e.g. voicememo import - < memo.m4a"
        case .failed(let why): "reading standard input failed: \(why); check the disk space of the temporary directory"
        }
    }
}
