import HistoryReading

extension PackedReference {
    /// Completions of `typed` when it goes into a backup folder or a zip archive: the names of the
    /// files there that begin with it, cut after the next folder (`…/AppDomainGroup-group.x/`);
    /// nil when `typed` does not go into one (a plain path: the caller completes files).
    public static func completions(_ typed: String) -> [String]? {
        var components = typed.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let leading = typed.hasPrefix("/") ? "/" : ""
        if leading == "/" { components.removeFirst() }
        for count in stride(from: components.count, through: 1, by: -1) {
            // "PLACE/" is typed into the place: its files, not the place again.
            if count == components.count && components[count - 1].isEmpty { continue }
            let place = leading + components[0..<count].joined(separator: "/")
            guard !place.isEmpty, place != "/", let status = FileStatus(place) else { continue }
            let inner = count == components.count ? nil : components[count...].joined(separator: "/")
            let paths: [String]
            if status.kind == .directory, DeviceBackup.isBackup(place),
                let backup = try? BackupPlace(DeviceBackup(root: place))
            {
                paths = backup.paths
            } else if status.kind == .regular, ZipStoreArchive.isArchive(place),
                let archive = try? ZipStoreArchive(path: place)
            {
                paths = ArchivePlace(archive).paths
            } else {
                return nil
            }
            guard let inner else { return [place + "/"] }
            var found: [String] = []
            var seen = Set<String>()
            for path in paths where path.hasPrefix(inner) {
                if PathText.isCompanion(PathText.last(path)) { continue }
                let rest = path.dropFirst(inner.count)
                let shown = rest.firstIndex(of: "/").map { inner + rest[...$0] } ?? path
                if seen.insert(shown).inserted { found.append(place + "/" + shown) }
            }
            return found
        }
        return nil
    }
}
