import Foundation
import HistoryKit

/// The previews of writes made in this session, each carried out at most once and only while
/// every file it read is as it was.
actor PreviewLedger {
    struct Preview: Sendable {
        let call: ToolCall
        /// The command line that carries it out.
        let execution: [String]
        /// Each file the preview read (its arguments that name a file, and their -wal), as it
        /// was then; nil for one that was not there.
        let files: [String: FileDigest?]
    }

    private var previews: [String: Preview] = [:]
    private var made = 0

    /// Records `call`'s preview, carried out by `execution`; its identifier.
    func record(_ call: ToolCall, executing execution: [String], files: [String: FileDigest?]) -> String {
        made += 1
        let id = "preview-\(made)"
        previews[id] = Preview(call: call, execution: execution, files: files)
        return id
    }

    /// The preview `id`, given up by the ledger; a failure naming why it cannot be carried out
    /// (unknown, used, or a file changed since).
    func take(_ id: String) throws -> Preview {
        guard let preview = previews.removeValue(forKey: id) else {
            throw ToolFailure(
                """
                no preview '\(id)' to carry out in this session (each previewID is carried out once; \
                call the preview again)
                """)
        }
        let now = try Self.digests(of: preview.files.keys)
        for path in preview.files.keys.sorted() where now[path] != preview.files[path] {
            throw ToolFailure(
                "\(path) has changed since preview '\(id)': nothing was written; call the preview again")
        }
        return preview
    }

    /// The files `call` names (every value that is a regular file) and their -wal, as they are now.
    static func digests(of call: ToolCall) throws -> [String: FileDigest?] {
        let named = call.values.filter { FileStatus($0)?.kind == .regular }
        return try digests(of: named + named.map { $0 + "-wal" })
    }

    private static func digests(of paths: some Sequence<String>) throws -> [String: FileDigest?] {
        var digests: [String: FileDigest?] = [:]
        // Size, time and SHA-256: a file rewritten with the same bytes is not the one previewed.
        for path in paths { digests[path] = try FileDigest.take(path) }
        return digests
    }
}
