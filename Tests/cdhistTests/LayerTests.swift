import Foundation
import TestSupport
import Testing

/// HistoryKit is five targets, each seeing only the ones below it (`Package.swift`), so the
/// compiler refuses an upward use between them. Inside a target, its folders form layers: a file
/// uses its own folder and the folders below it, never one above. Read bottom-up, each folder
/// needs only what came before it. CONTRIBUTING.md's layout map lists them in this order.
@Suite struct LayerTests {
    /// HistoryKit's targets, lowest first, each with its folders, lowest first. `HistoryWrites`
    /// and `HistoryPlaces` both sit on `HistoryAnalysis` and do not see each other.
    static let targets: [(name: String, layers: [String])] = [
        ("HistoryReading", ["Messages", "Platform", "Formats", "Packed", "WAL", "Model", "Store", "History"]),
        ("HistoryAnalysis", ["Objects", "Diff", "Watch", "Saves", "MergeState", "CloudKit", "Analysis"]),
        ("HistoryWrites", ["Repair", "Purge"]),
        ("HistoryPlaces", ["Places", "Evidence"]),
        ("HistoryKit", ["Check", "Gathering", "Provoke", "UseCases"]),
    ]

    /// Every folder of every target, lowest first.
    static let layers = targets.flatMap(\.layers)

    /// A use of a name declared in a folder above the user's.
    struct Violation: CustomStringConvertible {
        var file: String, name: String, declaredIn: String
        var description: String { "\(file) uses \(name) of \(declaredIn)/" }
    }

    /// The Swift files of HistoryKit's targets, as (path below the target's folder, text).
    static func sources() throws -> [(path: String, text: String)] {
        try targets.flatMap { target in
            let root = Repository.root.appendingPathComponent("Sources/" + target.name)
            return try (FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? [])
                .filter { $0.hasSuffix(".swift") }.sorted()
                .map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
        }
    }

    /// The code of `text` without comments and string literals (whose words are no uses).
    static func code(_ text: String) -> String {
        var s = text
        for pattern in [#"(?s)/\*.*?\*/"#, #"//[^\n]*"#, #"(?s)""".*?""""#, #""(?:\\.|[^"\\\n])*""#] {
            s = s.replacingOccurrences(of: pattern, with: "\"\"", options: .regularExpression)
        }
        return s
    }

    private static func matches(_ pattern: String, in text: String, group: Int = 1) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return [] }
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// Every use in `files` of a name declared in a folder above the using file's: top-level types
    /// (a nested type is reached through its parent) and the instance methods and properties of
    /// extensions (`store.fieldSummaries(…)`), each name counted only where a single folder declares
    /// it and no enum case shares it.
    static func violations(_ files: [(path: String, text: String)]) -> [Violation] {
        let coded = files.map { (path: $0.path, folder: String($0.path.split(separator: "/")[0]), code: code($0.text)) }
        var types: [String: Set<String>] = [:]
        var members: [String: Set<String>] = [:]
        var declared: [String: Set<String>] = [:]
        var cases = Set<String>()
        for file in coded {
            for name in matches(
                #"^(?:(?:public|internal|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)"#,
                in: file.code)
            {
                types[name, default: []].insert(file.folder)
            }
            cases.formUnion(matches(#"\bcase\s+([a-z]\w*)"#, in: file.code))
            // Every member, property and function declared, at any depth: a name several folders declare is ambiguous.
            for name in matches(#"\b(?:func|var|let)\s+([a-z]\w*)"#, in: file.code) {
                declared[name, default: []].insert(file.folder)
            }
            // Members at the first level of an extension's body (four spaces in), neither static nor private.
            for body in extensionBodies(file.code) {
                for line in body.split(separator: "\n") where line.hasPrefix("    ") && !line.hasPrefix("     ") {
                    let text = String(line)
                    guard !text.contains("static "), !text.contains("private "), !text.contains("class func") else {
                        continue
                    }
                    for name in matches(#"\b(?:func|var|let)\s+([a-z]\w*)"#, in: text) {
                        members[name, default: []].insert(file.folder)
                    }
                }
            }
        }
        var found: [Violation] = []
        for file in coded {
            guard let rank = layers.firstIndex(of: file.folder) else { continue }
            func check(_ name: String, _ folders: Set<String>?) {
                guard let folders, folders.count == 1, let folder = folders.first,
                    let above = layers.firstIndex(of: folder), above > rank
                else { return }
                found.append(Violation(file: file.path, name: name, declaredIn: folder))
            }
            for name in Set(matches(#"\b([A-Z]\w*)\b"#, in: file.code)) { check(name, types[name]) }
            // A member used through a value (`store.fieldSummaries`) or, inside another extension, bare (`fieldSummaries(`).
            let used = matches(#"\.([a-z]\w*)\b"#, in: file.code) + matches(#"(?<![.\w])([a-z]\w*)\("#, in: file.code)
            for name in Set(used) where !cases.contains(name) && types[name] == nil && declared[name]?.count == 1 {
                check("." + name, members[name])
            }
        }
        return found.sorted { ($0.file, $0.name) < ($1.file, $1.name) }
    }

    /// The bodies of the extensions declared at the top of `code`.
    private static func extensionBodies(_ code: String) -> [String] {
        var bodies: [String] = []
        var rest = code[...]
        while let start = rest.range(of: "\nextension ")
            ?? (rest.hasPrefix("extension ") ? rest.startIndex..<rest.startIndex : nil),
            let open = rest[start.upperBound...].firstIndex(of: "{")
        {
            var depth = 1
            var i = rest.index(after: open)
            while depth > 0 && i < rest.endIndex {
                if rest[i] == "{" { depth += 1 } else if rest[i] == "}" { depth -= 1 }
                i = rest.index(after: i)
            }
            bodies.append(String(rest[rest.index(after: open)..<i]))
            rest = rest[i...]
        }
        return bodies
    }

    @Test func noFolderReachesAbove() throws {
        let files = try Self.sources()
        let folders = Set(files.compactMap { $0.path.contains("/") ? String($0.path.split(separator: "/")[0]) : nil })
        #expect(
            folders == Set(Self.layers),
            """
            folders not in the layers: \(folders.subtracting(Self.layers)); layers without a folder: \
            \(Set(Self.layers).subtracting(folders))
            """
        )
        let violations = Self.violations(files)
        #expect(violations.isEmpty, "\(violations.map(\.description).joined(separator: "\n"))")
    }

    /// The check finds what it is for: a Store file whose extension of the store calls a summary
    /// and names its type (both of History/, above Store/) is two violations; another that
    /// calls it through a value, one; an Objects file that names a purge plan (of Purge/), one; the
    /// extension in Check/ (above History/), none.
    @Test func aPlantedUpwardUseIsFound() throws {
        let planted = """
            extension HistoryStore {
                func planted() throws -> [FieldSummary] { try fieldSummaries(.author, countingChanges: false) }
            }
            """
        let files = try Self.sources()
        func found(_ path: String, _ text: String) -> [String] {
            Self.violations(files + [(path, text)]).filter { $0.file == path }.map(\.description)
        }
        #expect(
            found("Store/Planted.swift", planted) == [
                "Store/Planted.swift uses .fieldSummaries of History/",
                "Store/Planted.swift uses FieldSummary of History/",
            ])
        #expect(
            found(
                "Store/Value.swift",
                "func planted(_ store: HistoryStore) throws { _ = try store.fieldSummaries(.author) }")
                == ["Store/Value.swift uses .fieldSummaries of History/"])
        #expect(
            found("Objects/Planted.swift", "func planted(_ store: HistoryStore) throws -> PurgePlan { fatalError() }")
                == ["Objects/Planted.swift uses PurgePlan of Purge/"])
        #expect(found("Check/Planted.swift", planted).isEmpty)
    }

    /// CONTRIBUTING.md's layout map names every target of HistoryKit and its folders, in the
    /// order of the layers.
    @Test func theLayoutMapNamesTheLayers() throws {
        let guide = try String(contentsOf: Repository.root.appendingPathComponent("CONTRIBUTING.md"), encoding: .utf8)
        var listed: [(name: String, layers: [String])] = []
        var inTarget = false
        for line in guide.split(separator: "\n") where !line.hasPrefix("   ") {
            // "Sources/HistoryReading/  …" opens a target; an indented "Messages/  …" is one of its
            // folders; any other line at the margin ("Sources/cdhist/") closes it.
            if !line.hasPrefix(" ") {
                let name = line.hasPrefix("Sources/") ? line.split(separator: "/").dropFirst().first ?? "" : ""
                inTarget = Self.targets.contains { $0.name == name }
                if inTarget { listed.append((String(name), [])) }
            } else if inTarget {
                let word = line.drop { $0 == " " }.prefix { $0 != " " }
                if word.hasSuffix("/") { listed[listed.count - 1].layers.append(String(word.dropLast())) }
            }
        }
        #expect(listed.map(\.name) == Self.targets.map(\.name), "CONTRIBUTING.md lists \(listed.map(\.name))")
        for (target, expected) in zip(listed, Self.targets) {
            #expect(
                target.layers == expected.layers, "CONTRIBUTING.md lists \(target.name)'s folders as \(target.layers)")
        }
    }

    /// Each target of HistoryKit depends, in `Package.swift`, on targets listed before it only.
    @Test func targetsDependOnLowerTargetsOnly() throws {
        let manifest = try String(contentsOf: Repository.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let names = Self.targets.map(\.name)
        for (rank, target) in names.enumerated() {
            // The target's declaration: from its name to the end of its dependencies.
            let start = try #require(
                manifest.range(of: "name: \"\(target)\",\\s*dependencies:", options: .regularExpression),
                "Package.swift declares no target \(target)")
            let end = try #require(manifest[start.upperBound...].range(of: "swiftSettings"))
            let declaration = manifest[start.upperBound..<end.lowerBound]
            let used = names.filter { declaration.contains("\"\($0)\"") }
            #expect(used.allSatisfy { names.prefix(rank).contains($0) }, "\(target) depends on \(used)")
        }
    }
}
