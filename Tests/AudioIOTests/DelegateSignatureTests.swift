import Foundation
import TestSupport
import Testing

/// A delegate method written with a slightly wrong signature is a compile error, never a method that is silently not
/// called: code is type-checked by the Swift compiler against this build's AudioIO module, as a user's would be.
@Suite struct DelegateSignatureTests {
    /// The compiler's verdict on `source`: its status and diagnostics.
    func typeCheck(_ source: String) throws -> ToolResult {
        // The test bundle sits in the build's products directory (…/.build/<triple>/debug), beside `Modules`.
        let products = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let checkouts = products.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = package.appendingPathComponent("Sources")
        // The C modules AudioIO imports: ours, the packages' it depends on, and the system headers pkg-config names.
        var moduleMaps = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted()
            .map { sources.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
        let enumerator = FileManager.default.enumerator(atPath: checkouts.path)
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix("/module.modulemap") { moduleMaps.append(checkouts.appendingPathComponent(path).path) }
        }
        let manifest = try String(contentsOf: package.appendingPathComponent("Package.swift"), encoding: .utf8)
        let pkgConfigNames = manifest.split(separator: "pkgConfig: \"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let includes = try Tool.output("pkg-config", ["--cflags-only-I"] + pkgConfigNames).split(separator: " ").map(String.init)
        let scratch = try ScratchDirectory()
        let file = scratch.path("Client.swift")
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        var arguments = ["-typecheck", "-swift-version", "6", "-I", products.appendingPathComponent("Modules").path]
        for map in moduleMaps where FileManager.default.fileExists(atPath: map) {
            arguments += ["-Xcc", "-fmodule-map-file=" + map]
        }
        for include in includes where !include.isEmpty {
            arguments += ["-Xcc", include.trimmingCharacters(in: .whitespacesAndNewlines)]
        }
        return try withExtendedLifetime(scratch) { try Tool.run("swiftc", arguments + [file]) }
    }

    @Test func delegatesWithEveryMethodRightCompile() throws {
        let result = try typeCheck("""
            import AudioIO
            final class Listener: AudioPlayerDelegate, AudioRecorderDelegate {
                func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {}
                func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: AudioFileError) {}
                func audioRecorderDidFinishRecording(_ recorder: AudioRecorder, successfully: Bool) {}
                func audioRecorderEncodeErrorDidOccur(_ recorder: AudioRecorder, error: AudioFileError) {}
            }
            """)
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test(arguments: [
        ("AudioPlayerDelegate", """
            func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully: Bool) {}
            func audioPlayerDecodeErrorDidOccur(_ player: AudioPlayer, error: (any Error)?) {}
            """),
        ("AudioPlayerDelegate", "func audioPlayerDidFinishPlaying(_ player: AudioPlayer, successfully flag: Bool?) {}"),
        ("AudioRecorderDelegate", """
            func audioRecorderDidFinishRecording(_ recorder: AudioRecorder, successfully: Bool) {}
            func audioRecorderEncodeErrorDidOccur(_ recorder: AudioRecorder, error: Error?) {}
            """),
    ])
    func aMethodWithANearMissSignatureIsACompileError(protocolName: String, methods: String) throws {
        let result = try typeCheck("import AudioIO\nfinal class Listener: \(protocolName) {\n\(methods)\n}\n")
        #expect(result.status != 0)
        #expect(result.standardError.contains("does not conform to protocol '\(protocolName)'"), "\(result.standardError)")
    }
}
