import AudioIO
import TestSupport
import Testing

/// What a system without FFmpeg or libcurl is told, in one line: what needs the library, why it could not be loaded,
/// what works without it, and the Debian packages to install. (Taking the libraries away is `make check-deb`'s part:
/// this process has them loaded.)
@Suite struct MissingLibraryErrorTests {
    static let notFound = "cannot open shared object file: No such file or directory"

    /// The major version of an FFmpeg library this was built with, as pkg-config says it: Debian names its package.
    private func major(_ library: String) throws -> String {
        try #require(try Tool.output("pkg-config", ["--modversion", library]).split(separator: ".").first.map(String.init))
    }

    @Test func m4aWithoutFFmpegNamesTheOtherFormatsAndThePackages() throws {
        let (format, codec) = (try major("libavformat"), try major("libavcodec"))
        let error = MissingLibraryError.ffmpeg(for: "M4A", reason: "libavformat.so.\(format): \(Self.notFound)")
        #expect(error.description == "M4A needs FFmpeg, which could not be loaded (libavformat.so.\(format): \(Self.notFound)); "
            + "the other formats work without it; install it with: apt install libavformat\(format) libavcodec\(codec)")
        #expect(!error.description.contains("\n"))
    }

    @Test func downloadingWithoutLibcurlNamesFilesAndThePackage() {
        let error = MissingLibraryError.libcurl(reason: "libcurl.so.4: \(Self.notFound)")
        #expect(error.description == "downloading needs libcurl, which could not be loaded (libcurl.so.4: \(Self.notFound)); "
            + "files work without it; install it with: apt install libcurl4")
    }
}
