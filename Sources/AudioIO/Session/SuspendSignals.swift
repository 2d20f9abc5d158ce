import SystemEdge

/// SIGTSTP (Ctrl-Z) and SIGCONT (`fg`) as an interruption: on SIGTSTP, `began` runs (players and recorders
/// pause), then the process stops itself with SIGSTOP, as it would have without us; on SIGCONT, `ended`
/// runs. Both run on the signal thread (``ProcessSignals``), in order, so `ended` never overtakes `began`.
///
/// **Thread safety**: make and release it on any thread; releasing it restores the default actions.
final class SuspendSignals: Sendable {
    private let observation: ProcessSignals.Observation

    init(began: @escaping @Sendable () -> Void, ended: @escaping @Sendable () -> Void) {
        observation = ProcessSignals.observe([.terminalStop, .continue]) { signal in
            if signal == .terminalStop {
                began()
                Signal.stop.sendToThisProcess()
            } else {
                ended()
            }
        }
    }
}
