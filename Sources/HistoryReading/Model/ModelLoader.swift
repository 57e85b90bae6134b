import Foundation

/// Where a model came from.
public enum ModelSource: Equatable, Sendable, CustomStringConvertible {
    /// The store's own `Z_MODELCACHE`.
    case storeCache
    /// A file or folder the user named (`.mom`, `.momd`, `.xcdatamodel`, `.xcdatamodeld`),
    /// with the file actually read.
    case file(path: String, resolved: String)

    public var description: String {
        switch self {
        case .storeCache: return "Z_MODELCACHE"
        case .file(let path, let resolved): return path == resolved ? path : "\(path) (\(resolved))"
        }
    }
}

/// Loads a model from the user's files or from a model-cache blob.
public enum ModelLoader {
    /// The most a model cache may inflate to: 16 MiB, 48 times the model of Photos (one of
    /// the largest there is, 350 KB), and bounding what a hostile cache costs every command.
    public static let modelCacheLimit = 16 << 20

    /// Decodes the content of `Z_MODELCACHE` (raw DEFLATE of a keyed archive).
    public static func fromModelCache(_ blob: [UInt8], source: String) throws -> ManagedObjectModel {
        let plist: [UInt8]
        do {
            plist = try RawDeflate.inflate(blob, limit: modelCacheLimit)
        } catch {
            throw ModelError.undecodable(source: source, reason: "\(error)")
        }
        return try fromArchive(plist, source: source)
    }

    /// Decodes a compiled model (`.mom` content: an uncompressed keyed archive).
    public static func fromArchive(_ bytes: [UInt8], source: String) throws -> ManagedObjectModel {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(bytes: bytes)
        } catch {
            throw ModelError.undecodable(source: source, reason: "\(error)")
        }
        return try ModelArchiveDecoder.decode(archive, source: source)
    }

    /// Loads a model from a `.mom`, `.momd`, `.xcdatamodel` or `.xcdatamodeld`
    /// path. For bundles, the current version is taken from `VersionInfo.plist`
    /// (`.momd`) or `.xccurrentversion` (`.xcdatamodeld`); a bundle with a
    /// single version needs neither.
    public static func load(path: String) throws -> (model: ManagedObjectModel, source: ModelSource) {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: path, isDirectory: &isDir) else { throw ModelError.fileNotFound(path: path) }
        let url = URL(fileURLWithPath: path)
        let ext = url.pathExtension.lowercased()
        switch (ext, isDir.boolValue) {
        case ("mom", false):
            return (try fromArchive(try readBytes(path), source: path), .file(path: path, resolved: path))
        case ("momd", true):
            let mom = try currentVersion(
                in: path, extension: "mom", infoFile: "VersionInfo.plist",
                key: "NSManagedObjectModel_CurrentVersionName")
            return (try fromArchive(try readBytes(mom), source: mom), .file(path: path, resolved: mom))
        case ("xcdatamodel", true):
            let contents = url.appendingPathComponent("contents").path
            guard fm.fileExists(atPath: contents) else {
                throw ModelError.unsupportedFile(path: path, reason: "no 'contents' file inside the .xcdatamodel")
            }
            return (
                try XcdatamodelReader.read(try readBytes(contents), source: contents),
                .file(path: path, resolved: contents)
            )
        case ("xcdatamodeld", true):
            let version = try currentVersion(
                in: path, extension: "xcdatamodel", infoFile: ".xccurrentversion",
                key: "_XCCurrentVersionName")
            let contents = URL(fileURLWithPath: version).appendingPathComponent("contents").path
            return (
                try XcdatamodelReader.read(try readBytes(contents), source: contents),
                .file(path: path, resolved: contents)
            )
        case (_, true) where fm.fileExists(atPath: url.appendingPathComponent("contents").path):
            let contents = url.appendingPathComponent("contents").path
            return (
                try XcdatamodelReader.read(try readBytes(contents), source: contents),
                .file(path: path, resolved: contents)
            )
        case (_, false) where url.lastPathComponent == "contents":
            return (try XcdatamodelReader.read(try readBytes(path), source: path), .file(path: path, resolved: path))
        default:
            throw ModelError.unsupportedFile(
                path: path,
                reason: "not a model: expected a .mom file, or a .momd, .xcdatamodel or .xcdatamodeld folder")
        }
    }

    private static func readBytes(_ path: String) throws -> [UInt8] {
        guard let data = FileContents.read(path) else {
            throw ModelError.unsupportedFile(
                path: path, reason: "cannot be read (\(FileContents.whyUnreadable(path) ?? "it changed while read"))")
        }
        return [UInt8](data)
    }

    /// The path of the current version inside a model bundle.
    private static func currentVersion(in bundle: String, extension ext: String, infoFile: String, key: String) throws
        -> String
    {
        let dir = URL(fileURLWithPath: bundle)
        let infoPath = dir.appendingPathComponent(infoFile).path
        if let data = FileContents.read(infoPath) {
            let info: PlistValue
            do {
                info = try PropertyList.decode(data)
            } catch {
                throw ModelError.undecodable(source: infoPath, reason: "\(error)")
            }
            if let name = info[key]?.stringValue {
                let file = name.hasSuffix(".\(ext)") ? name : "\(name).\(ext)"
                let path = dir.appendingPathComponent(file).path
                guard FileManager.default.fileExists(atPath: path) else {
                    throw ModelError.unsupportedFile(
                        path: bundle, reason: "\(infoFile) names '\(name)' but \(file) is missing")
                }
                return path
            }
        }
        let candidates = ((try? FileManager.default.contentsOfDirectory(atPath: bundle)) ?? [])
            .filter { $0.hasSuffix(".\(ext)") }.sorted()
        guard candidates.count == 1 else {
            let why =
                candidates.isEmpty
                ? "contains no .\(ext)" : "has \(candidates.count) versions and no \(infoFile) naming the current one"
            throw ModelError.unsupportedFile(path: bundle, reason: why)
        }
        return dir.appendingPathComponent(candidates[0]).path
    }
}
