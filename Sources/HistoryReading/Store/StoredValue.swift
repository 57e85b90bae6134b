/// A value as SQLite stores it (a tombstone's, an object's attribute), in its storage class.
public enum StoredValue: Equatable, Sendable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
