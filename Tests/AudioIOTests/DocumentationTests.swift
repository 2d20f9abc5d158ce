import TestSupport
import Testing

/// AudioIO's documentation is whole and true: every public symbol has a doc comment of its own, and the code in the
/// DocC catalog's articles (`Sources/AudioIO/AudioIO.docc`) compiles against this build. `make docs` checks the
/// links.
@Suite struct DocumentationTests {
    @Test func everyPublicSymbolIsDocumented() throws {
        let undocumented = try BuiltModules.undocumentedPublicSymbols(of: "AudioIO")
        #expect(undocumented.isEmpty, "public symbols without a doc comment:\n\(undocumented.joined(separator: "\n"))")
    }

    @Test func theArticlesCodeCompiles() throws {
        let code = try BuiltModules.articleCode(of: "AudioIO")
        #expect(code.contains("AudioPlayer(contentsOf:") && code.contains("QueuePlayer(items:"))
        let result = try BuiltModules.typeCheck(code)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
