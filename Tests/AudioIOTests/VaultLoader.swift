import AudioIO
import Foundation

// The example loader of the DocC article "Loading Bytes of Your Own" (CustomResourceLoaders.md), as it is there.

/// Plays `memo-enc://` addresses: files in `vault` whose bytes are scrambled by a keystream of `key`, decrypted as
/// they are read. Each byte's keystream depends on its offset alone, so any range decrypts without what comes before.
final class VaultLoader: AssetResourceLoaderDelegate {
    let vault: URL
    let key: UInt64

    init(vault: URL, key: UInt64) {
        self.vault = vault
        self.key = key
    }

    func resourceLoader(
        _ resourceLoader: AssetResourceLoader, shouldWaitForLoadingOfRequestedResource loadingRequest: AssetResourceLoadingRequest
    ) -> Bool {
        let file = vault.appendingPathComponent(loadingRequest.url.lastPathComponent)
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        do {
            if let information = loadingRequest.contentInformationRequest {
                information.contentType = "audio/wav"
                information.contentLength = Int64(try handle.seekToEnd())
                information.isByteRangeAccessSupported = true
            }
            if let request = loadingRequest.dataRequest {
                try handle.seek(toOffset: UInt64(request.requestedOffset))
                var left = request.requestedLength
                // The delegate's queue is the loader's own: reading here holds up no one else. A seek elsewhere cancels
                // the request, and the rest of it is not read.
                while left > 0, !loadingRequest.isCancelled,
                      let chunk = try handle.read(upToCount: min(left, 64 * 1024)), !chunk.isEmpty {
                    request.respond(with: Self.crypt(chunk, at: request.currentOffset, key: key))
                    left -= chunk.count
                }
            }
            loadingRequest.finishLoading()
        } catch {
            loadingRequest.finishLoading(with: error)
        }
        return true
    }

    /// `bytes`, found at `offset`, encrypted or decrypted: XORed with the keystream, so both are the same.
    static func crypt(_ bytes: Data, at offset: Int64, key: UInt64) -> Data {
        Data(bytes.enumerated().map { index, byte in
            // SplitMix64 of the byte's offset: a keystream that can start anywhere.
            var mixed = (key ^ UInt64(offset + Int64(index))) &* 0x9E37_79B9_7F4A_7C15
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            return byte ^ UInt8(truncatingIfNeeded: mixed >> 56)
        })
    }
}

#if canImport(Testing)
import Testing

/// The example's keystream: any range of a vault decrypts alone to the plain bytes there, and the vault is not them.
@Suite struct VaultLoaderTests {
    @Test func anyRangeOfAVaultDecryptsToThePlainBytesThere() {
        let plain = Data((0..<4096).map { UInt8($0 % 251) })
        let vault = VaultLoader.crypt(plain, at: 0, key: 35)
        #expect(vault != plain && zip(vault, plain).filter { $0 != $1 }.count > 4000, "scrambled")
        for (start, end) in [(0, 4096), (1, 2), (1000, 3001), (4095, 4096)] {
            #expect(VaultLoader.crypt(vault[start..<end], at: Int64(start), key: 35) == plain[start..<end], "\(start)..<\(end)")
        }
        #expect(VaultLoader.crypt(vault, at: 0, key: 36) != plain, "another key reads nothing")
    }
}
#endif
