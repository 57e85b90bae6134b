import Foundation

/// Why a place holding stores (a backup, an archive, a name inside one) cannot be read.
public enum PlaceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The backup is encrypted: its files cannot be read without its password.
    case encryptedBackup(path: String)
    /// The backup's manifest is missing or unreadable.
    case unreadableBackup(path: String, reason: String)
    /// The zip archive cannot be read.
    case unreadableArchive(path: String, reason: String)
    /// A name inside a backup or an archive that names no file there.
    case notInPlace(name: String, place: String)
    /// A store inside a backup or an archive, which cdhist only reads.
    case readOnlyPlace(name: String)
    /// The private copy of a store inside a backup or an archive could not be written.
    case copyFailed(name: String, folder: String, reason: String)

    public var description: String {
        switch self {
        case .encryptedBackup(let p):
            return
                """
                \(p): the backup is encrypted; cdhist does not decrypt backups. Decrypt it with the tool you \
                already have, then point cdhist at the decrypted copy
                """
        case .unreadableBackup(let p, let reason):
            return "\(p): not a readable backup: \(reason)"
        case .unreadableArchive(let p, let reason):
            return "\(p): not a readable zip archive: \(reason)"
        case .notInPlace(let name, let place):
            return "\(name): no such file in \(place)"
        case .copyFailed(let name, let folder, let reason):
            return "\(name): cannot copy the store to read it into \(folder): \(reason)"
        case .readOnlyPlace(let name):
            return
                """
                \(name): the store is inside a backup or an archive, which cdhist never writes into; copy the \
                store (with its -wal) out first
                """
        }
    }
}
