import Foundation
import HistoryKit

/// A temporary directory removed (even when made read-only) when released.
public final class TemporaryDirectory {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cdhist-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies every file of `directory` whose name starts with `prefix` into this directory, writable.
    public func copy(from directory: String, prefix: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasPrefix(prefix) {
            try FileManager.default.copyItem(atPath: directory + "/" + name, toPath: file(name))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file(name))
        }
    }
}

/// Every file's bytes and the listing of a directory tree, to prove nothing changed.
public struct DirectoryState: Equatable {
    public var files: [String: Data]

    public init(_ directory: String) throws {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let name = enumerator?.nextObject() as? String {
            // A link is its text (a dangling one too), so replacing it by a file is a change.
            if let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + name) {
                files[name] = Data(("link to " + destination).utf8)
                continue
            }
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: directory + "/" + name, isDirectory: &isDir)
            files[name] = isDir.boolValue ? Data() : (FileContents.read(directory + "/" + name) ?? Data())
        }
        self.files = files
    }
}
