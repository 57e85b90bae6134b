import Foundation

/// The private temporary folders a store is copied into to be read (a snapshot of a store
/// SQLite cannot read in place, a store inside a backup or an archive). Each folder's name
/// holds the process that made it, so that one left by a process that was killed (a signal
/// ends it before its copies are removed) is removed by the next cdhist to make one.
enum PrivateFolder {
    static let prefixes = ["cdhist-snapshot-", "cdhist-packed-"]

    /// A new folder (mode 700) named `prefix`, this process and a UUID; older folders of
    /// processes that are gone are removed first.
    static func make(_ prefix: String) throws -> URL {
        let fm = FileManager.default
        removeAbandoned(in: fm.temporaryDirectory)
        let dir = fm.temporaryDirectory.appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        return dir
    }

    /// Removes the folders in `folder` whose process no longer exists. A folder without a
    /// process in its name, or of a process that is alive (or whose number was reused), stays.
    static func removeAbandoned(in folder: URL) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let prefix = prefixes.first(where: { name.hasPrefix($0) }),
                let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid()
            else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? fm.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }
}
