import Foundation

/// Buffered writing to stdout (or a file), flushed in large chunks.
final class Output {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private let flushThreshold = 64 << 10

    init(handle: FileHandle = .standardOutput) {
        self.handle = handle
        buffer.reserveCapacity(flushThreshold + 4096)
    }

    func write(_ text: String) {
        buffer += text.utf8
        if buffer.count >= flushThreshold { flush() }
    }

    func write(bytes: [UInt8]) {
        buffer += bytes
        if buffer.count >= flushThreshold { flush() }
    }

    func line(_ text: String = "") {
        write(text)
        buffer.append(0x0A)
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    deinit { flush() }
}

/// Writes one line to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
