import Foundation

/// This build's Swift modules (AudioIO, MemoStore) as a program that depends on the package sees them: the
/// compiler's verdict on code written against them, and their public symbols as docc reads them.
///
/// Both run the toolchain's tools (`swiftc`, `swift-symbolgraph-extract`) on the modules in the build's products
/// directory, with the module maps of the C modules they import (ours in `Sources/`, the packages' in
/// `.build/checkouts`) and the include paths pkg-config gives for the system libraries Package.swift names.
public enum BuiltModules {
    /// The compiler's verdict on `source`, type-checked in Swift 6 mode: its status and diagnostics.
    public static func typeCheck(_ source: String) throws -> ToolResult {
        let scratch = try ScratchDirectory()
        let file = scratch.path("Client.swift")
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        return try withExtendedLifetime(scratch) {
            try Tool.run("swiftc", ["-typecheck", "-swift-version", "6"] + (try searchArguments()) + [file])
        }
    }

    /// The Swift code of the articles in `module`'s documentation catalog (`Sources/<module>/<module>.docc`) as one
    /// source file to type-check: each article's ```` ```swift ```` blocks, in order, as the body of one function, since
    /// a later block goes on with what an earlier one declared; their imports at the top (so an article that uses
    /// `URL` must show its import). A block that shows `Package.swift` is left out.
    public static func articleCode(of module: String) throws -> String {
        let catalog = packageDirectory.appendingPathComponent("Sources/\(module)/\(module).docc")
        var imports: Set<String> = []
        var functions: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: catalog.path).sorted() where name.hasSuffix(".md") {
            let text = try String(contentsOf: catalog.appendingPathComponent(name), encoding: .utf8)
            let blocks = text.components(separatedBy: "```swift\n").dropFirst()
                .map { $0.components(separatedBy: "```")[0] }
                .filter { !$0.contains("Package.swift") }
            var body: [String] = []
            for line in blocks.joined().split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("import ") {
                    imports.insert(String(line.prefix { $0 != "/" }).trimmingCharacters(in: .whitespaces))
                } else {
                    body.append(String(line))
                }
            }
            let function = name.dropLast(3).filter { $0.isLetter || $0.isNumber }
            functions.append("func \(function)Article() async throws {\n\(body.joined(separator: "\n"))\n}")
        }
        return (imports.sorted() + functions).joined(separator: "\n")
    }

    /// The public symbols of `module` that have no documentation of their own, as `Type.member` paths, sorted.
    ///
    /// Exempt are the members whose documentation docc takes from a protocol: those whose `memberOf` relationship
    /// in the symbol graph names a `sourceOrigin`, the protocol member they come from. These are the implementations
    /// of a protocol's requirements (`description`, `==`, `rawValue`, `init(rawValue:)`, `init(from:)`,
    /// `encode(to:)`, `allCases`) and the members a protocol's extension gives (`!=`, `hashValue`, `hash(into:)`, an
    /// option set's `insert(_:)`).
    public static func undocumentedPublicSymbols(of module: String) throws -> [String] {
        let graph = try symbolGraph(of: module)
        let fromProtocols = Set(graph.relationships.filter { $0.kind == "memberOf" && $0.sourceOrigin != nil }.map(\.source))
        return graph.symbols.filter { symbol in
            !fromProtocols.contains(symbol.identifier.precise)
                && (symbol.docComment?.lines ?? []).allSatisfy { $0.text.trimmingCharacters(in: .whitespaces).isEmpty }
        }.map { $0.pathComponents.joined(separator: ".") }.sorted()
    }

    /// The public symbol graph of `module`, as `swift-symbolgraph-extract` writes it for docc.
    static func symbolGraph(of module: String) throws -> SymbolGraph {
        let scratch = try ScratchDirectory()
        let arguments = ["-module-name", module, "-minimum-access-level", "public", "-output-dir", scratch.url.path]
        return try withExtendedLifetime(scratch) {
            try Tool.output("swift-symbolgraph-extract", arguments + (try searchArguments()))
            let data = try Data(contentsOf: scratch.file("\(module).symbols.json"))
            return try JSONDecoder().decode(SymbolGraph.self, from: data)
        }
    }

    /// The package's directory: this file is in its `Tests/TestSupport`.
    private static let packageDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The arguments that let the compiler find this build's modules and everything they import.
    private static func searchArguments() throws -> [String] {
        // The test bundle sits in the build's products directory (…/.build/<triple>/debug), beside `Modules`.
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let checkouts = products.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        let package = packageDirectory
        let sources = package.appendingPathComponent("Sources")
        // The C modules AudioIO imports: ours (a system library's map beside its shim, a C target's in its include
        // directory), the packages' it depends on, and the system headers pkg-config names.
        var moduleMaps = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted().flatMap { target in
            ["module.modulemap", "include/module.modulemap"].map { sources.appendingPathComponent(target).appendingPathComponent($0).path }
        }
        let enumerator = FileManager.default.enumerator(atPath: checkouts.path)
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix("/module.modulemap") { moduleMaps.append(checkouts.appendingPathComponent(path).path) }
        }
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pkgConfigNames = manifest.split(separator: "pkgConfig: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let includes = try Tool.output("pkg-config", ["--cflags-only-I"] + pkgConfigNames).split(separator: " ").map(String.init)
        var arguments = ["-I", products.appendingPathComponent("Modules").path]
        for map in moduleMaps where FileManager.default.fileExists(atPath: map) {
            arguments += ["-Xcc", "-fmodule-map-file=" + map]
        }
        for include in includes where !include.isEmpty {
            arguments += ["-Xcc", include.trimmingCharacters(in: .whitespacesAndNewlines)]
        }
        return arguments
    }
}

/// The parts of a symbol graph (`<Module>.symbols.json`) that say what is documented.
struct SymbolGraph: Decodable, Sendable {
    /// A declaration: its name's path, and its doc comment when it has one.
    struct Symbol: Decodable, Sendable {
        struct Identifier: Decodable, Sendable {
            let precise: String
        }
        struct DocComment: Decodable, Sendable {
            struct Line: Decodable, Sendable {
                let text: String
            }
            let lines: [Line]
        }
        let identifier: Identifier
        let pathComponents: [String]
        let docComment: DocComment?
    }
    /// How two symbols relate: `source` is a member of (`memberOf`), conforms to, or is a requirement of another.
    struct Relationship: Decodable, Sendable {
        let kind: String
        let source: String
        /// Where a member that a type gets from a protocol comes from: the protocol's member (`identifier`,
        /// `displayName`); absent for the type's own members.
        let sourceOrigin: [String: String]?
    }
    let symbols: [Symbol]
    let relationships: [Relationship]
}

#if canImport(Testing)
import Testing

/// The helper itself: the compiler it runs sees this build's modules, and tells right code from wrong.
@Suite struct BuiltModulesTests {
    @Test func codeAgainstTheBuiltModuleCompilesAndAMistakeDoesNot() throws {
        let right = try BuiltModules.typeCheck("import AudioIO\nlet format: AudioFileFormat = .wav\n")
        #expect(right.status == 0, "\(right.standardError)")
        let wrong = try BuiltModules.typeCheck("import AudioIO\nlet format: AudioFileFormat = .wave\n")
        #expect(wrong.status != 0 && wrong.standardError.contains("wave"), "\(wrong.standardError)")
    }
}
#endif
