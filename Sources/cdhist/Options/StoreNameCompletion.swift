import Foundation
import HistoryKit

/// Completion of a store's name, in the shells' scripts and the session's `open`: paths, and
/// the files inside a backup folder or a zip archive once the name goes into one.
enum StoreNameCompletion {
    /// The names beginning with `typed`: inside a backup or an archive its files, else the files
    /// and folders of the folder typed (folders, backups and archives end in `/`).
    static func names(_ typed: String) -> [String] {
        let home = NSHomeDirectory()
        let tilde = typed.hasPrefix("~/")
        let expanded = tilde ? home + typed.dropFirst() : typed
        // A name with a control character is not offered: the shell would send it to the terminal.
        let found = (PackedReference.completions(expanded) ?? files(expanded)).filter {
            !$0.unicodeScalars.contains { TerminalText.escape($0) != nil }
        }
        return tilde ? found.map { "~" + $0.dropFirst(home.count) } : found
    }

    /// The shells' completion of the store argument. bash hands the word over as typed
    /// (`My\ Fo`, `'My Fo`): it is read as the shell will read it, and the names are given
    /// plain (bash matches them against the typed word and escapes what it inserts).
    @Sendable static func shell(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        let found = names(typedWord(prefix))
        // bash adds the / of a folder on disk itself (after the closing quote of a quoted word):
        // a name ending in one already would get two.
        guard ProcessInfo.processInfo.environment["SAP_SHELL"] == "bash" else { return found }
        return found.map { name in
            name.hasSuffix("/") && FileStatus(String(name.dropLast()))?.kind == .directory
                ? String(name.dropLast()) : name
        }
    }

    /// What a half-typed shell word reads as: escapes and quotes removed (an open quote closed);
    /// the word itself when it does not read as one word (fish hands words over unescaped).
    static func typedWord(_ raw: String) -> String {
        for ending in ["", "'", "\""] {
            if let words = try? LineSplitter.split(raw + ending), words.count == 1, let word = words.first {
                return word
            }
        }
        return raw
    }

    private static func files(_ typed: String) -> [String] {
        let folder = typed.hasSuffix("/") ? typed : PathText.parent(typed)
        let start = typed.hasSuffix("/") ? "" : PathText.last(typed)
        let listed = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        return listed.filter { $0.hasPrefix(start) && (start.hasPrefix(".") || !$0.hasPrefix(".")) }.sorted().map {
            entry in
            let path = folder.isEmpty ? entry : PathText.join(folder, entry)
            let goesIn = FileStatus(path)?.kind == .directory || PackedReference.isZipArchive(path)
            return goesIn ? path + "/" : path
        }
    }
}
