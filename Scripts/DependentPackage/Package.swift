// swift-tools-version:6.1
import PackageDescription

// A package as a Swift developer writes one that plays audio with AudioIO: it depends on voicememo by version.
// `make check-dependent` (Scripts/check-dependent.sh) points it at a clone of this repository tagged with the version
// of Sources/AudioIO/Version.swift, through VOICEMEMO_URL and VOICEMEMO_VERSION.
let url = Context.environment["VOICEMEMO_URL"] ?? "file:///nonexistent/voicememo"
let version = Version(Context.environment["VOICEMEMO_VERSION"] ?? "0.1.0") ?? "0.1.0"

let package = Package(
    name: "DependentPackage",
    dependencies: [.package(url: url, from: version)],
    targets: [
        .executableTarget(name: "PlayAFile", dependencies: [.product(name: "AudioIO", package: "voicememo")])
    ]
)
