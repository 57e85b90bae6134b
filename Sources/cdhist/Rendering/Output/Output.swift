import Foundation
import HistoryKit

/// Buffered writing to stdout (or a file), flushed in large chunks.
final class Output {
    private let handle: FileHandle
    /// The console whose standard output this is; nil for a file.
    private let console: Console?
    private var buffer: [UInt8] = []
    private let flushThreshold = 64 << 10
    /// The first write that failed (a full disk, a file-size limit); later writes are dropped.
    private(set) var failure: Error?
    /// What a closed standard output means while a session pages a command's output: the
    /// pager was quit, so later writes are dropped and this is called (it stops the command).
    /// Without it, a reader that went away (`| head`) ends the process quietly.
    private let whenClosed: (() -> Void)?

    /// Output to `console`'s standard output: a failed write (not a closed pipe) prints its
    /// cause and, on this process's own, exits with status 2.
    init(console: Console, whenClosed: (() -> Void)? = nil) {
        handle = console.standardOutput
        self.console = console
        self.whenClosed = whenClosed
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// Output to a file: a failed write is kept in ``failure`` for the file's owner to report.
    init(handle: FileHandle) {
        self.handle = handle
        console = nil
        whenClosed = nil
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    /// What the output begins with, written before its first byte (``begin(with:)``).
    private var opening: [UInt8]?
    /// A column put before each CSV record (``prefixCSVRecords(name:value:)``).
    private var csvColumn: CSVColumnPrefix?
    /// Whether bytes go straight to the buffer: no opening to write first, no column to put in.
    private var plain = true

    /// Begins the output with `bytes`, before whatever is written first (nothing when nothing is).
    func begin(with bytes: [UInt8]) {
        opening = bytes
        plain = false
    }

    /// Puts a first column before every CSV record written from here on: `name` in the header
    /// (the first record), `value` in each row.
    func prefixCSVRecords(name: String, value: String) {
        csvColumn = CSVColumnPrefix(
            header: Array((CSV.row([name], raw: true) + ",").utf8),
            row: Array((CSV.row([value], raw: false) + ",").utf8))
        plain = false
    }

    func write(_ text: String) {
        guard plain else { return stamped(Array(text.utf8)) }
        buffer += text.utf8
        if buffer.count >= flushThreshold { flush() }
    }

    func write(bytes: [UInt8]) {
        guard plain else { return stamped(bytes) }
        buffer += bytes
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes `bytes` after the opening, if it is still to be written, and with the CSV column.
    private func stamped(_ bytes: [UInt8]) {
        if let first = opening {
            opening = nil
            plain = csvColumn == nil
            write(bytes: first)
        }
        if csvColumn != nil {
            csvColumn?.add(bytes, to: &buffer)
        } else {
            buffer += bytes
        }
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes `bytes` and empties them once they are many (a record too large to hold
    /// whole, written in pieces), or leaves them to grow.
    func spill(_ bytes: inout [UInt8]) {
        guard bytes.count >= OrderedOutput.writeThreshold else { return }
        write(bytes: bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    func line(_ text: String = "") {
        guard plain else { return stamped(Array(text.utf8) + [0x0A]) }
        buffer += text.utf8
        buffer.append(0x0A)
        if buffer.count >= flushThreshold { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        if failure == nil {
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                failure = error
                if let console, console.isProcess {
                    // A reader that went away (| head) is no error; anything else is.
                    if ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code == Int(EPIPE) {
                        guard let closed = whenClosed else { exit(0) }
                        closed()
                        buffer.removeAll(keepingCapacity: true)
                        return
                    }
                    console.printError("cdhist: standard output: \(WriteFault.cause(error))")
                    exit(2)
                }
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Puts a column before each record of CSV text written in pieces: a record begins at the start
/// and after each line break outside quotes (RFC 4180: a quoted cell may hold line breaks).
struct CSVColumnPrefix {
    let header: [UInt8]
    let row: [UInt8]
    private var inQuotes = false
    private var atRecordStart = true
    private var headerWritten = false

    init(header: [UInt8], row: [UInt8]) {
        self.header = header
        self.row = row
    }

    mutating func add(_ bytes: [UInt8], to out: inout [UInt8]) {
        for byte in bytes {
            if atRecordStart {
                out += headerWritten ? row : header
                headerWritten = true
                atRecordStart = false
            }
            out.append(byte)
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if byte == 0x0A && !inQuotes {
                atRecordStart = true
            }
        }
    }
}
