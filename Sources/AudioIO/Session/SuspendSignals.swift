import Dispatch
import Glibc

/// SIGTSTP (Ctrl-Z) and SIGCONT (`fg`) as an interruption: on SIGTSTP, `began` runs (players and recorders
/// pause), then the process stops itself with SIGSTOP, as it would have without us; on SIGCONT, `ended`
/// runs. Both run on one serial queue, so `ended` never overtakes `began`.
///
/// **Thread safety**: make and release it on any thread; releasing it restores the default actions.
/// (`@unchecked`: the sources are touched only in `init` and `deinit`.)
final class SuspendSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(began: @escaping @Sendable () -> Void, ended: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "AudioSession.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, handler) in [(SIGTSTP, began), (SIGCONT, ended)] {
            // Ignored until the source takes it over, so that none arriving meanwhile stops the process
            // without a pause first.
            if number == SIGTSTP { signal(number, SIG_IGN) }
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                handler()
                if number == SIGTSTP { kill(getpid(), SIGSTOP) }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    deinit {
        for source in sources { source.cancel() }
        signal(SIGTSTP, SIG_DFL)
    }
}
