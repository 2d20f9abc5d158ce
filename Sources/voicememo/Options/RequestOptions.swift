import ArgumentParser
import AudioIO
import FoundationEssentials

/// `--header 'Name: value'`, repeatable, as curl's `-H`: the request headers `play` and `import` send for http(s)
/// addresses (a token, a cookie); and `--ca-file PATH`, as curl's `--cacert`: the certificate authorities an https
/// server is checked against. Together, an address's ``AudioAsset/Options``.
///
/// A value may be a secret: no message says one, only the header's name, or its place among the `--header`s.
struct RequestOptions: ParsableArguments {
    @Option(name: .customLong("header"), help: ArgumentHelp(
        "A request header for http(s) addresses, e.g. 'Authorization: Bearer TOKEN'; repeat for more. Sent with every request; Authorization and Cookie not on a redirect to another host or port.",
        valueName: "name: value"))
    var headers: [String] = []

    @Option(name: .customLong("ca-file"), help: ArgumentHelp(
        "A PEM file of the certificate authorities to trust for https addresses, instead of the system's: for a server whose certificate a private CA signed.",
        valueName: "path"))
    var certificateAuthorityFile: String?

    func validate() throws {
        var names: Set<String> = []
        for (number, header) in headers.enumerated() {
            guard let colon = header.firstIndex(of: ":") else {
                throw ValidationError("--header number \(number + 1) has no ':'; give each header as 'Name: value'.")
            }
            let name = String(header[..<colon])
            guard !name.isEmpty else {
                throw ValidationError("--header number \(number + 1) has no name before its ':'; give each header as 'Name: value'.")
            }
            guard !header.contains(where: \.isNewline) else {
                throw ValidationError("--header number \(number + 1) has a line break in it; a header is one line.")
            }
            guard names.insert(name.lowercased()).inserted else {
                throw ValidationError("--header '\(name.terminalSafe)' is given twice; give each header once.")
            }
        }
        if let certificateAuthorityFile, !FileManager.default.isReadableFile(atPath: certificateAuthorityFile) {
            throw ValidationError("--ca-file '\(certificateAuthorityFile.terminalSafe)' is not a file this can read; give the path of a PEM file.")
        }
        do {
            try assetOptions.validate()
        } catch {
            // The library's sentence names the field, never its value.
            throw ValidationError("--header: \(error)".terminalSafe + ".")
        }
    }

    /// The headers as an address's options: each split at its first ':' (the value's surrounding blanks are not sent).
    var assetOptions: AudioAsset.Options {
        let fields = headers.compactMap { header in
            header.firstIndex(of: ":").map { (String(header[..<$0]), String(header[header.index(after: $0)...])) }
        }
        return AudioAsset.Options(
            httpHeaderFields: Dictionary(fields) { _, last in last },
            certificateAuthorityFile: certificateAuthorityFile.map { URL(fileURLWithPath: $0) })
    }
}
