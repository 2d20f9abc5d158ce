import Foundation
import TestSupport
import Testing

/// The package can be depended on by version: SwiftPM refuses `unsafeFlags` in such a dependency (`the target … in
/// product … contains unsafe build flags`), so no target may have them, in any configuration of the manifest.
/// `make check-dependent` builds a package that depends on a clone of this one by version; this finds the cause in a
/// second.
@Suite struct PackageManifestTests {
    @Test(arguments: [[:], ["VOICEMEMO_BENCHMARKS": "1"]])
    func noTargetHasUnsafeFlags(configuration: [String: String]) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // A scratch path of its own: the suite's `swift test` holds the lock of `.build`.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let environment = Tool.environment.merging(configuration) { $1 }
        let result = try Tool.run(
            "swift", ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"],
            environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let package = try JSONDecoder().decode(DumpedPackage.self, from: Data(result.standardOutput.utf8))
        #expect(package.targets.contains { $0.name == "CWebRTCAudio" })
        let unsafe = package.targets.filter { target in
            target.settings.contains { $0.kind.keys.contains("unsafeFlags") }
        }.map(\.name)
        #expect(unsafe.isEmpty, "targets with unsafeFlags: \(unsafe)")
    }
}

/// What `swift package dump-package` says of each target's build settings.
private struct DumpedPackage: Decodable {
    struct Target: Decodable {
        let name: String
        let settings: [Setting]
    }
    struct Setting: Decodable {
        /// One key, the setting's kind: `define`, `headerSearchPath`, `linkedLibrary`, `unsafeFlags`…
        let kind: [String: JSONValue]
    }
    let targets: [Target]
}

/// Any JSON value, read and ignored.
private struct JSONValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
