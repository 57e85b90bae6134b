import CDHistCLI
import Foundation
import MCP
import TestSupport
import Testing

@testable import CDHistMCP

/// Writes through the server: absent unless it was started with writes allowed, and then only a
/// preview of the same session, once, while the files it read are unchanged.
@Suite struct WriteTests {
    /// A writable copy of fixtures/MergeState.
    static func mergeState() throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory()
        try dir.copy(from: Repository.fixtures + "/MergeState", prefix: "")
        return dir
    }

    @Test func withoutWritesNoWriteIsOffered() async throws {
        try await ClientSession.with { session in
            let (tools, _) = try await session.client.listTools()
            #expect(tools.map(\.name) == ToolCatalog.reading.map(\.name))
            #expect(tools.allSatisfy { $0.annotations.readOnlyHint == true })
            do {
                _ = try await session.call("execute", ["preview": "preview-1"])
                Issue.record("execute was answered without writes allowed")
            } catch let error as MCPError {
                #expect(error.localizedDescription.contains("no tool 'execute'"))
            }
            let preview = try await session.call(
                "purge_preview", ["store": "\(Repository.fixtures)/MergeState/Tasks.sqlite", "before": "tx:10"])
            #expect(Self.member("previewID", of: preview) == nil)
        }
    }

    @Test func aPurgeRunsOnlyFromItsPreviewAndOnce() async throws {
        let dir = try Self.mergeState()
        let store = dir.file("Tasks.sqlite")
        try await ClientSession.with(allowWrites: true) { session in
            let (tools, _) = try await session.client.listTools()
            let names = tools.map(\.name)
            #expect(
                names
                    == ToolCatalog.reading.map(\.name) + [
                        "repair_defaults_preview", "provoke_preview", "provoke_undo_preview", "execute",
                    ])
            let execute = try #require(tools.first { $0.name == "execute" })
            #expect(execute.annotations.destructiveHint == true && execute.annotations.readOnlyHint == false)
            // An identifier no preview gave.
            let unknown = try await session.call("execute", ["preview": "preview-99"])
            #expect(unknown.isError == true)
            #expect(ServerTests.text(unknown)?.contains("no preview 'preview-99'") == true)

            let preview = try await session.call("purge_preview", ["store": .string(store), "before": "tx:10"])
            let id = try #require(Self.member("previewID", of: preview) as? String)
            // The preview is the command line's, with its identifier.
            var document = try ServerTests.object(try #require(ServerTests.text(preview)))
            document["previewID"] = nil
            let expected = try ServerTests.commandLineJSON(["purge", store, "--before", "tx:10"])
            #expect(try ServerTests.canonical(document) == ServerTests.canonical(expected))

            let done = try await session.call("execute", ["preview": .string(id)])
            #expect(done.isError != true, "\(ServerTests.text(done) ?? "")")
            let left = try ServerTests.commandLineJSON(["info", store])
            #expect(left["transactionCount"] as? Int == 25)
            let again = try await session.call("execute", ["preview": .string(id)])
            #expect(again.isError == true)
        }
    }

    @Test func aWriteIsRefusedWhenTheStoreChangedSinceItsPreview() async throws {
        let dir = try Self.mergeState()
        let store = dir.file("Tasks.sqlite")
        try await ClientSession.with(allowWrites: true) { session in
            let preview = try await session.call("purge_preview", ["store": .string(store), "before": "tx:10"])
            let id = try #require(Self.member("previewID", of: preview) as? String)
            // Another process purges first.
            let status = Entry.run(
                ["purge", store, "--before", "tx:5", "--execute", "--yes", "--no-backup"],
                console: Console(
                    standardOutput: FileHandle(forWritingAtPath: "/dev/null")!,
                    standardError: FileHandle(forWritingAtPath: "/dev/null")!,
                    environment: ProcessInfo.processInfo.environment))
            #expect(status == 0)
            let refused = try await session.call("execute", ["preview": .string(id)])
            #expect(refused.isError == true)
            #expect(ServerTests.text(refused)?.contains("has changed since preview '\(id)'") == true)
            let left = try ServerTests.commandLineJSON(["info", store])
            #expect(left["transactionCount"] as? Int == 30)
        }
    }

    @Test func aRepairRunsFromItsPreview() async throws {
        let dir = try Self.mergeState()
        let plist = dir.file("phtk.plist")
        let before = try Data(contentsOf: URL(fileURLWithPath: plist))
        try await ClientSession.with(allowWrites: true) { session in
            let preview = try await session.call(
                "repair_defaults_preview",
                [
                    "plist": .string(plist), "actor": "widget", "to": "tx:34", "allow_skip": true,
                    "store": .string(dir.file("Tasks.sqlite")),
                ])
            #expect(preview.isError != true, "\(ServerTests.text(preview) ?? "")")
            #expect(try Data(contentsOf: URL(fileURLWithPath: plist)) == before)
            let id = try #require(Self.member("previewID", of: preview) as? String)
            let done = try await session.call("execute", ["preview": .string(id)])
            #expect(done.isError != true, "\(ServerTests.text(done) ?? "")")
            #expect(try Data(contentsOf: URL(fileURLWithPath: plist)) != before)
        }
    }

    /// A provocation is previewed, then carried out; its undo is previewed, then carried out, and
    /// every file is as it was.
    @Test func aProvocationAndItsUndoRunFromTheirPreviews() async throws {
        let dir = try Self.mergeState()
        let store = dir.file("Tasks.sqlite")
        let before = try DirectoryState(dir.path)
        try await ClientSession.with(allowWrites: true) { session in
            let (tools, _) = try await session.client.listTools()
            let provoke = try #require(tools.first { $0.name == "provoke_preview" })
            let properties = provoke.inputSchema.objectValue?["properties"]?.objectValue ?? [:]
            #expect(properties["undo"] == nil && properties["execute"] == nil && properties["scenario"] != nil)
            let undo = try #require(tools.first { $0.name == "provoke_undo_preview" })
            let undoProperties = undo.inputSchema.objectValue?["properties"]?.objectValue ?? [:]
            #expect(Set(undoProperties.keys) == ["store", "force", "cursor"])
            let arguments: [String: Value] = [
                "scenario": "missed-changes", "store": .string(store), "defaults": .string(dir.file("phtk.plist")),
                "actor": "widget",
            ]
            let preview = try await session.call("provoke_preview", arguments)
            #expect(try DirectoryState(dir.path) == before)
            let id = try #require(Self.member("previewID", of: preview) as? String)
            let done = try await session.call("execute", ["preview": .string(id)])
            #expect(done.isError != true, "\(ServerTests.text(done) ?? "")")
            #expect(Self.member("executed", of: done) as? Bool == true)
            let provoked = try DirectoryState(dir.path)
            #expect(provoked != before)

            let undoPreview = try await session.call("provoke_undo_preview", ["store": .string(store)])
            #expect(undoPreview.isError != true, "\(ServerTests.text(undoPreview) ?? "")")
            #expect(Self.member("executed", of: undoPreview) as? Bool == false)
            // The answer is the command line's, and the previewID.
            var answer = try ServerTests.object(try #require(ServerTests.text(undoPreview)))
            answer["previewID"] = nil
            let expected = try ServerTests.commandLineJSON(["provoke", "--undo", store, "--preview"])
            #expect(try ServerTests.canonical(answer) == ServerTests.canonical(expected))
            #expect(try DirectoryState(dir.path) == provoked, "an undo's preview changed a file")
            let undoID = try #require(Self.member("previewID", of: undoPreview) as? String)
            let undone = try await session.call("execute", ["preview": .string(undoID)])
            #expect(undone.isError != true, "\(ServerTests.text(undone) ?? "")")
            #expect(Self.member("executed", of: undone) as? Bool == true)
            #expect(try DirectoryState(dir.path) == before, "the undo left a difference")
        }
    }

    /// A page and a preview, the members the server adds included, validate against
    /// schemas/cdhist.schema.json (through python3's jsonschema, as the command line's tests do).
    @Test func answersValidateAgainstTheSchema() async throws {
        let dir = try Self.mergeState()
        let store = dir.file("Tasks.sqlite")
        var answers: [String] = []
        try await ClientSession.with(maxResultBytes: 8_192, allowWrites: true) { session in
            for (tool, arguments) in [
                ("changes", ["store": Value.string(store)]),
                ("purge_preview", ["store": .string(store), "before": "tx:10"]),
                ("info", ["store": .string(store)]),
            ] {
                answers.append(try #require(ServerTests.text(try await session.call(tool, arguments))))
            }
        }
        #expect(try ServerTests.object(answers[0])["page"] != nil)
        #expect(try ServerTests.object(answers[1])["previewID"] != nil)
        try Self.expectValid(answers)
    }

    /// `answers` validate against schemas/cdhist.schema.json; skipped with a notice without
    /// python3's jsonschema.
    static func expectValid(_ answers: [String]) throws {
        let check = try Subprocess.run(
            "/usr/bin/env", ["python3", "-c", "import jsonschema"], environment: ProcessInfo.processInfo.environment)
        guard check.status == 0 else {
            print("NOTICE: python3 with jsonschema not found; the MCP answers' schema validation is skipped")
            return
        }
        let dir = try TemporaryDirectory()
        var files: [String] = []
        for (index, answer) in answers.enumerated() {
            files.append(dir.file("answer-\(index).json"))
            try Data(answer.utf8).write(to: URL(fileURLWithPath: files[index]))
        }
        let validation = try Subprocess.run(
            "/usr/bin/env", ["python3", Repository.root.appendingPathComponent("schemas/validate.py").path] + files,
            environment: ProcessInfo.processInfo.environment)
        #expect(validation.status == 0, "\(String(decoding: validation.stdout + validation.stderr, as: UTF8.self))")
    }

    /// A top-level member of a result's document.
    static func member(_ name: String, of result: CallTool.Result) -> Any? {
        guard let text = ServerTests.text(result), let document = try? ServerTests.object(text) else { return nil }
        return document[name]
    }
}
