import Foundation

/// A value shared between threads: read and changed only inside ``withLock(_:)``, under its
/// lock. The one such holder in the package (Swift's `Mutex` needs macOS 15).
// Unchecked Sendable: `value` is reached only inside `withLock`, while `lock` is held.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, which it may change, while no other thread can reach it.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// The value now.
    public var current: Value { withLock { $0 } }

    /// Replaces the value.
    public func set(_ newValue: Value) { withLock { $0 = newValue } }
}
