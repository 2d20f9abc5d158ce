// swift-tools-version:6.1
import PackageDescription

/// A system library reached through pkg-config, with the Debian package that provides it.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "voicememo",
    products: [
        .library(name: "AudioIO", targets: ["AudioIO"]),
        .library(name: "MemoStore", targets: ["MemoStore"]),
        .library(name: "NowPlaying", targets: ["NowPlaying"]),
        .executable(name: "voicememo", targets: ["voicememo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
    ],
    targets: [
        systemLibrary("CALSA", pkgConfig: "alsa", apt: "libasound2-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        systemLibrary("CSoxr", pkgConfig: "soxr", apt: "libsoxr-dev"),
        systemLibrary("CSoundTouch", pkgConfig: "soundtouch", apt: "libsoundtouch-dev"),
        systemLibrary("COgg", pkgConfig: "ogg", apt: "libogg-dev"),
        systemLibrary("CEBUR128", pkgConfig: "libebur128", apt: "libebur128-dev"),
        // FFmpeg (libavformat-dev, libavcodec-dev) and libcurl (libcurl4-openssl-dev) are not linked: each brings
        // dozens of libraries that every start of the process would load, so they are opened when first used
        // (CLibraryLoader). Their headers are in the compiler's own search path.
        .target(name: "CLibraryLoader"),
        .target(name: "CFFmpeg", dependencies: ["CLibraryLoader"]),
        .systemLibrary(name: "CFileSystem"),
        // The C library's calls (file locks, signals, terminals, poll, inotify, threads, clocks), typed, in one place:
        // every module above calls it, none of them calls libc itself.
        .target(
            name: "SystemEdge",
            dependencies: ["CFileSystem", .product(name: "SystemPackage", package: "swift-system")]),
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // The MPRIS vtables, which are C macros; sd-bus from libsystemd (libsystemd-dev).
        .target(name: "CMPRIS", linkerSettings: [.linkedLibrary("systemd")]),
        // Speech enhancement: webrtc-audio-processing's C++ API (libwebrtc-audio-processing-dev) behind a C shim.
        // The system library carries pkg-config's include directory and library to the shim, which defines the two
        // macros the .pc file also asks for (SwiftPM takes only -I from it, and warns that it dropped the -D). No
        // target may pass unchecked compiler flags: SwiftPM refuses them in a package depended on by version.
        systemLibrary(
            "CWebRTCAudioProcessing", pkgConfig: "webrtc-audio-processing", apt: "libwebrtc-audio-processing-dev"),
        .target(name: "CWebRTCAudio", dependencies: ["CWebRTCAudioProcessing"]),
        .target(
            name: "AudioIO",
            dependencies: [
                "CALSA", "CSndFile", "COpus", "CSoxr", "CSoundTouch", "COgg", "CFFmpeg", "CCurl", "CEBUR128",
                "CWebRTCAudio", "SystemEdge",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .target(name: "NowPlaying", dependencies: ["AudioIO", "CMPRIS", "SystemEdge", .product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "MemoStore",
            dependencies: [
                "AudioIO", "SystemEdge",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "voicememo",
            dependencies: [
                "AudioIO", "MemoStore", "NowPlaying", "SystemEdge",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "TestSupport"]),
        .testTarget(name: "NowPlayingTests", dependencies: ["NowPlaying", "AudioIO", "TestSupport"]),
        .testTarget(name: "MemoStoreTests", dependencies: ["MemoStore", "AudioIO", "TestSupport"]),
        .testTarget(name: "VoiceMemoTests", dependencies: ["voicememo", "AudioIO", "TestSupport"]),
    ]
)

// The benchmarks (`make bench`, Benchmarks/) exist only when VOICEMEMO_BENCHMARKS=1, so that `swift build` and
// `swift test` neither resolve nor build ordo-one/benchmark and what it brings. They live in this package to
// see AudioIO's `package` symbols (the mixer, its voices and rings; the capture cycle and its taps). The trait
// list replaces the package's default traits, which include RuntimeInterposer: on Linux with Swift 6.3 that one
// needs ordo-one/swift-runtime-interposer, which is not among the packages available here.
if Context.environment["VOICEMEMO_BENCHMARKS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
    // One executable per suite: the in-process benchmarks, each with its thresholds in Benchmarks/Thresholds.
    for suite in ["RenderCycle", "CaptureCycle", "StartLatency", "Loudness"] {
        package.targets.append(
            .executableTarget(
                name: suite,
                dependencies: [
                    "AudioIO",
                    .product(name: "Atomics", package: "swift-atomics"),
                    .product(name: "Benchmark", package: "benchmark"),
                ],
                path: "Benchmarks/\(suite)",
                plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
            ))
    }
}
