import Dispatch
import Synchronization

/// Where an ``AudioAsset`` whose address has a scheme of the app's own (`memo-enc://…`) gets its bytes, as
/// `AVAssetResourceLoader` is: its ``delegate`` answers loading requests — the content's length and whether byte ranges
/// can be read, then the bytes of each range as they come.
///
/// ```swift
/// let asset = AudioAsset(url: URL(string: "memo-enc://vault/talk.wav")!)
/// asset.resourceLoader.setDelegate(loader, queue: DispatchQueue(label: "decrypting"))
/// let player = Player(playerItem: PlayerItem(asset: asset))
/// ```
///
/// The bytes take the path an `http` address's take: they are kept in the asset's ``RemoteCache`` under the address,
/// asked for a range at a time (256 KiB ahead of where reading is, to the end while a player plays them), waited for
/// by the player, which buffers meanwhile, and asked for anew where a seek lands (the request under way is cancelled).
/// `http` and `https` addresses are always downloaded by the library: the delegate is asked only for other schemes.
///
/// **Thread safety**: every member may be used from any thread.
public final class AssetResourceLoader: Sendable {
    private let state = Mutex<(delegate: (any AssetResourceLoaderDelegate)?, queue: DispatchQueue?)>((nil, nil))

    init() {}

    /// Sets the delegate that answers loading requests, and the queue its methods are called on, as
    /// `AVAssetResourceLoader.setDelegate(_:queue:)` does; a nil queue calls them on a serial queue of the library's.
    /// Set it before the asset is loaded or played: a request made with no delegate fails with
    /// ``DownloadError/loaderRefused``. The loader holds the delegate strongly.
    public func setDelegate(_ delegate: (any AssetResourceLoaderDelegate)?, queue: DispatchQueue?) {
        state.withLock { $0 = (delegate, delegate == nil ? nil : queue) }
    }

    /// The delegate that answers loading requests; nil until ``setDelegate(_:queue:)`` sets one.
    public var delegate: (any AssetResourceLoaderDelegate)? { state.withLock { $0.delegate } }

    /// The queue the delegate's methods are called on, as given to ``setDelegate(_:queue:)``.
    public var delegateQueue: DispatchQueue? { state.withLock { $0.queue } }

    /// The delegate and the queue to call it on, if there is a delegate.
    var answerer: (delegate: any AssetResourceLoaderDelegate, queue: DispatchQueue)? {
        state.withLock { state in state.delegate.map { ($0, state.queue ?? Self.defaultQueue) } }
    }

    private static let defaultQueue = DispatchQueue(label: "audio-resource-loader")
}

/// What answers an ``AssetResourceLoader``'s loading requests, as `AVAssetResourceLoaderDelegate` does: an app's source
/// of bytes for addresses of its own scheme (a file decrypted as it is read, bytes in memory, a store of its own).
///
/// Its methods are called on the loader's ``AssetResourceLoader/delegateQueue``; a request's answers
/// (``AssetResourceLoadingDataRequest/respond(with:)``, ``AssetResourceLoadingRequest/finishLoading(with:)``) may be
/// given later, from any thread.
public protocol AssetResourceLoaderDelegate: AnyObject, Sendable {
    /// Whether the delegate takes `loadingRequest`: true when it will answer it (now or later) and finish it; false
    /// fails the asset with ``DownloadError/loaderRefused``.
    ///
    /// A request carries a ``AssetResourceLoadingRequest/contentInformationRequest`` (fill it in, then finish), or a
    /// ``AssetResourceLoadingRequest/dataRequest`` (respond with its bytes in order, then finish), never both: the
    /// first request of an address asks for its content information alone.
    func resourceLoader(
        _ resourceLoader: AssetResourceLoader, shouldWaitForLoadingOfRequestedResource loadingRequest: AssetResourceLoadingRequest
    ) -> Bool

    /// Tells the delegate that `loadingRequest` is no longer wanted (a seek elsewhere, the asset let go): it may stop
    /// producing its bytes, which are ignored from now on. Does nothing unless implemented.
    func resourceLoader(_ resourceLoader: AssetResourceLoader, didCancel loadingRequest: AssetResourceLoadingRequest)
}

extension AssetResourceLoaderDelegate {
    /// Does nothing: a delegate that cannot stop early need not implement it.
    public func resourceLoader(_ resourceLoader: AssetResourceLoader, didCancel loadingRequest: AssetResourceLoadingRequest) {}
}
