import Glibc

/// A signal, by what it asks of the process.
package struct Signal: RawRepresentable, Hashable, Sendable {
    /// Its number.
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Ctrl-C in a terminal. The corresponding C constant is `SIGINT`.
    package static let interrupt = Signal(rawValue: SIGINT)
    /// A polite request to end (`kill`, a service manager). The corresponding C constant is `SIGTERM`.
    package static let terminate = Signal(rawValue: SIGTERM)
    /// The terminal closed. The corresponding C constant is `SIGHUP`.
    package static let hangUp = Signal(rawValue: SIGHUP)
    /// Ctrl-Z in a terminal: a request to stop. The corresponding C constant is `SIGTSTP`.
    package static let terminalStop = Signal(rawValue: SIGTSTP)
    /// A stopped process goes on (`fg`, `bg`). The corresponding C constant is `SIGCONT`.
    package static let `continue` = Signal(rawValue: SIGCONT)
    /// Stops the process, which cannot catch it. The corresponding C constant is `SIGSTOP`.
    package static let stop = Signal(rawValue: SIGSTOP)
    /// A write to a pipe or socket whose reader has gone. The corresponding C constant is `SIGPIPE`.
    package static let brokenPipe = Signal(rawValue: SIGPIPE)

    /// Sends the signal to this process.
    ///
    /// The corresponding C functions are `kill` and `getpid`.
    package func sendToThisProcess() {
        kill(getpid(), rawValue)
    }

    /// From now on the signal does nothing to this process (and to the programs it starts, until they handle it).
    ///
    /// The corresponding C function is `signal` with `SIG_IGN`.
    package func ignore() {
        signal(rawValue, SIG_IGN)
    }
}
