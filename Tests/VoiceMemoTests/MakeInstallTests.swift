import Foundation
import TestSupport
import Testing

/// `make install` as its plan shows (`make -n`): it installs the Debian packages the build needs, not the tests' and
/// benchmarks' tools (nginx, Syncthing, strace, g++…), and puts the presets beside the memo store, not in it.
@Suite struct MakeInstallTests {
    @Test func makeInstallInstallsTheBuildsPackagesOnlyAndThePresetsOutsideTheStore() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let plan = try Tool.output("make", ["-C", root, "-n", "--no-print-directory", "install", "PREFIX=/home/u/.local"])
        let list = try #require(plan.firstMatch(of: /for package in ([^;]*);/)?.output.1)
        let packages = list.split(separator: " ").map(String.init)
        #expect(packages.contains("libasound2-dev") && packages.contains("libwebrtc-audio-processing-dev"))
        let notForBuilding = packages.filter { $0 != "pkg-config" && !$0.hasSuffix("-dev") }
        #expect(notForBuilding.isEmpty, "make install would install \(notForBuilding)")
        #expect(plan.contains("/home/u/.local/share/voicememo-presets/"))
        #expect(!plan.contains("install -m 644 Presets/*.json /home/u/.local/share/voicememo/"))
    }
}
