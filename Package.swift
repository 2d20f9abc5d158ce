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
        .target(
            name: "AudioIO",
            dependencies: [
                "CALSA", "CSndFile", "COpus", "CSoxr", "CSoundTouch",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Atomics", package: "swift-atomics"),
            ]
        ),
        .target(
            name: "MemoStore",
            dependencies: [
                "AudioIO",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .executableTarget(
            name: "voicememo",
            dependencies: [
                "AudioIO", "MemoStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "AudioIOTests", dependencies: ["AudioIO", "TestSupport"]),
        .testTarget(name: "MemoStoreTests", dependencies: ["MemoStore", "AudioIO", "TestSupport"]),
        .testTarget(name: "VoiceMemoTests", dependencies: ["voicememo", "AudioIO", "TestSupport"]),
    ]
)
