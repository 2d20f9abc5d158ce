import AudioIO
import FoundationEssentials
import SystemEdge
import SystemPackage

/// Markers the audio file does not hold, kept beside it: `.<id>.markers`, the markers as JSON and a newline.
///
/// A CAF file has no place for markers (libsndfile writes none), and a recording's file gets its markers only when it
/// is finished. The index has every memo's markers; the file beside the audio is what a rebuilt index, or the recovery
/// of a recording whose process died, takes them from when the audio file's own are not the memo's.
extension MemoStore {
    /// Keeps `markers` beside the audio of memo `id` unless its file holds them (`fileHoldsThem`); removes what was kept
    /// otherwise. Called under the store's lock.
    func keepMarkers(_ markers: [AudioMarker], of id: String, fileHoldsThem: Bool) throws(MemoStoreError) {
        let path = markersPath(of: id)
        guard !fileHoldsThem, !markers.isEmpty else {
            FileNames.removeIgnoringFailure(path)
            return
        }
        do {
            let data = try JSONEncoder().encode(markers)
            // Written whole beside and renamed, as a title is not: markers are kept while a recording runs, and a power
            // cut then must leave the old list or the new one.
            try DurableFile.write(Array(data) + [UInt8(ascii: "\n")], replacing: path, permissions: [.ownerReadWrite], syncing: false)
        } catch {
            throw .indexWriteFailed(path: path, reason: "\(error)")
        }
    }

    /// The markers kept beside the audio of memo `id`, if there are any.
    func keptMarkers(of id: String) -> [AudioMarker]? {
        guard let bytes = try? DurableFile.contents(of: markersPath(of: id)), bytes.last == UInt8(ascii: "\n"),
              let markers = try? JSONDecoder().decode([AudioMarker].self, from: Data(bytes.dropLast())),
              markers.count <= AudioMarker.maximumStoredCount, markers.allSatisfy({ $0.framePosition >= 0 })
        else { return nil }
        return markers
    }

    func markersPath(of id: String) -> String {
        directory.appendingPathComponent(".\(id).markers").path
    }
}
