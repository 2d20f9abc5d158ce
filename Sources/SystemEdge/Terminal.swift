import Glibc
import SystemPackage

/// A terminal, reached through a descriptor open on it: its width, whether this process is in its foreground, and
/// its modes (echo, line editing).
package struct Terminal: Sendable {
    /// The descriptor it is reached through.
    package let descriptor: FileDescriptor

    /// The terminal `descriptor` is open on, or `nil` when it is open on something else (a file, a pipe).
    ///
    /// The corresponding C function is `isatty`.
    package init?(_ descriptor: FileDescriptor) {
        guard isatty(descriptor.rawValue) == 1 else { return nil }
        self.descriptor = descriptor
    }

    /// Its width in columns, when it says.
    ///
    /// The corresponding C function is `ioctl` with `TIOCGWINSZ`.
    package var columns: Int? {
        var size = winsize()
        return ioctl(descriptor.rawValue, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : nil
    }

    /// Whether this process's group is the terminal's foreground: changing the terminal's modes from the background
    /// would stop the process (`SIGTTOU`).
    ///
    /// The corresponding C functions are `tcgetpgrp` and `getpgrp`.
    package var isInForeground: Bool {
        tcgetpgrp(descriptor.rawValue) == getpgrp()
    }

    /// Its modes now, or `nil` when they cannot be read.
    ///
    /// The corresponding C function is `tcgetattr`.
    package func modes() -> Modes? {
        var settings = termios()
        return tcgetattr(descriptor.rawValue, &settings) == 0 ? Modes(settings: settings) : nil
    }

    /// Gives it `modes` at once, whatever it is still writing.
    ///
    /// The corresponding C function is `tcsetattr` with `TCSANOW`.
    package func setModes(_ modes: Modes) {
        var settings = modes.settings
        tcsetattr(descriptor.rawValue, TCSANOW, &settings)
    }

    /// A terminal's modes, as read, to be given back as they were.
    package struct Modes: Sendable {
        fileprivate var settings: termios

        /// These modes with echo and line editing off: each key reaches the program as it is typed, and is not shown.
        ///
        /// The corresponding C flags are `ECHO` and `ICANON`, cleared.
        package var takingKeysAsTyped: Modes {
            var modes = self
            modes.settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
            return modes
        }
    }
}
