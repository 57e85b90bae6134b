import Foundation

/// What the process is writing to: terminal or not, its width, and whether colour is allowed.
struct Terminal {
    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    /// Columns to fit tables to: the terminal's, or `COLUMNS` when set; nil when
    /// stdout is not a terminal and `COLUMNS` is not set (nothing is wrapped then).
    let width: Int?
    let colorEnabled: Bool
    /// Output of a command run in an interactive session (advice may name the session's commands).
    var inSession = false

    /// This terminal as a line of an interactive session writes to it, with `--no-color` (`noColor`) applied.
    func insideSession(noColor: Bool) -> Terminal {
        Terminal(
            stdoutIsTerminal: stdoutIsTerminal, stderrIsTerminal: stderrIsTerminal, width: width,
            colorEnabled: colorEnabled && !noColor, inSession: true)
    }

    /// What `console` writes to; `noColor` is the `--no-color` flag. Width: the terminal's when
    /// stdout is one; else `COLUMNS`; else the terminal the command was typed in, found through
    /// stderr or stdin (`cdhist actors | less`); else none (nothing wrapped).
    static func of(_ console: Console, noColor: Bool) -> Terminal {
        let outFD = console.standardOutput.fileDescriptor
        let errFD = console.standardError.fileDescriptor
        let out = isatty(outFD) == 1
        let err = isatty(errFD) == 1
        let env = console.environment
        // Tables are made for 60 columns and up; nothing below 20 is taken literally.
        let columns = env["COLUMNS"].flatMap(Int.init).flatMap { $0 > 0 ? max($0, 20) : nil }
        let width: Int?
        if out {
            width = terminalColumns(outFD) ?? columns ?? 80
        } else {
            let typedIn = (err ? [errFD] : []) + (console.isProcess && isatty(STDIN_FILENO) == 1 ? [STDIN_FILENO] : [])
            width = columns ?? typedIn.lazy.compactMap(terminalColumns).first
        }
        let color = out && !noColor && env["NO_COLOR"] == nil && env["TERM"] != "dumb"
        return Terminal(stdoutIsTerminal: out, stderrIsTerminal: err, width: width, colorEnabled: color)
    }

    /// The width of the terminal `fd` is open on; nil when it is none or does not say.
    private static func terminalColumns(_ fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return max(Int(size.ws_col), 20)
    }
}

/// ANSI styles, applied only when colour is enabled.
enum Style: String {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"

    func apply(_ text: String, enabled: Bool) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" : text
    }
}
