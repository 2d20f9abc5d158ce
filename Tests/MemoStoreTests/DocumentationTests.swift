import TestSupport
import Testing

/// MemoStore's documentation is whole and true: every public symbol has a doc comment of its own, and the code on
/// the DocC catalog's pages (`Sources/MemoStore/MemoStore.docc`) compiles against this build.
@Suite struct DocumentationTests {
    @Test func everyPublicSymbolIsDocumented() throws {
        let undocumented = try BuiltModules.undocumentedPublicSymbols(of: "MemoStore")
        #expect(undocumented.isEmpty, "public symbols without a doc comment:\n\(undocumented.joined(separator: "\n"))")
    }

    @Test func theCatalogsCodeCompiles() throws {
        let code = try BuiltModules.articleCode(of: "MemoStore")
        #expect(code.contains("store.importAudio("))
        let result = try BuiltModules.typeCheck(code)
        #expect(result.status == 0, "\(result.standardError)")
    }
}
