import Foundation
import TestSupport
import Testing

/// Shell completion as bash does it, through the script `voicememo --generate-completion-script bash` writes.
@Suite struct CompletionTests {
    let cli: CLI
    let script: String

    init() throws {
        cli = try CLI()
        script = cli.scratch.path("voicememo.bash")
        let generated = try cli.run("--generate-completion-script", "bash")
        #expect(generated.status == 0)
        try generated.standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
    }

    /// What bash offers for `voicememo words...<TAB>`, the last word being the one typed so far.
    private func complete(_ words: String...) throws -> [String] {
        let line = (["voicememo"] + words).joined(separator: " ")
        let quoted = (["voicememo"] + words).map { "'\($0)'" }
        let driver = """
            source "$0"
            COMP_WORDS=(\(quoted.joined(separator: " "))); COMP_CWORD=\(words.count); COMP_LINE='\(line)'; COMP_POINT=\(line.count)
            _voicememo voicememo '\(words.last ?? "")' '\(words.dropLast().last ?? "voicememo")'
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = cli.environment
        environment["PATH"] = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "")
        let result = try Tool.run("bash", ["-c", driver, script], environment: environment)
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func everyCommandAndTheSortOrdersAreOffered() throws {
        #expect(try Set(complete("")).isSuperset(of: [
            "record", "list", "info", "rename", "delete", "import", "export", "trim", "restore", "undo", "trash", "meter", "devices",
            "presets", "play", "cache",
        ]))
        #expect(try complete("re") == ["record", "rename", "restore"])
        #expect(try complete("de") == ["delete", "devices"])
        #expect(try complete("list", "--sort", "") == ["date", "title", "duration", "loudness"])
    }

    @Test func zshAndFishGetScriptsThatOfferTheCommandsToo() throws {
        // What `make install` puts in share/zsh/site-functions and share/fish/vendor_completions.d.
        let zsh = try cli.run("--generate-completion-script", "zsh")
        #expect(zsh.status == 0 && zsh.standardOutput.hasPrefix("#compdef voicememo") && zsh.standardOutput.contains("'presets:"))
        let fish = try cli.run("--generate-completion-script", "fish")
        #expect(fish.status == 0 && fish.standardOutput.contains("complete -c 'voicememo'") && fish.standardOutput.contains("'presets'"))
    }

    @Test(arguments: ["info", "rename", "delete", "export"])
    func memoArgumentsCompleteWithTheIDsInTheStore(command: String) throws {
        let wanted = try cli.importTone(title: "Wanted")
        let other = try cli.importTone(title: "Other")
        #expect(try Set(complete(command, "")) == [wanted, other])
        #expect(try complete(command, String(wanted.prefix(6))) == [wanted])
    }
}
