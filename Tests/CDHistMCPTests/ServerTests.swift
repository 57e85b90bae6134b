import CDHistCLI
import Foundation
import HistoryKit
import MCP
import TestSupport
import Testing

@testable import CDHistMCP

/// The MCP server driven in this process by the protocol's own client: its tools, each tool's
/// answer against the command line's JSON for the same question, pages, and its errors.
@Suite struct ServerTests {
    static let m = "fixtures/MergeState"
    static let now = "2025-03-06T09:00:00Z"

    /// A question asked of a tool and of the command line.
    struct Question: CustomTestStringConvertible, Sendable {
        let tool: String
        let arguments: [String: Value]
        /// The same question on the command line (before `--format json`).
        let commandLine: [String]
        var testDescription: String { "\(tool) \(commandLine.dropFirst().joined(separator: " "))" }
    }

    /// Every tool, on the fixtures.
    static let questions: [Question] = [
        Question(
            tool: "find_stores", arguments: ["place": ["fixtures/GroupContainer"]],
            commandLine: ["stores", "fixtures/GroupContainer"]),
        Question(
            tool: "info", arguments: ["store": "fixtures/Purged/Tasks.sqlite"],
            commandLine: ["info", "fixtures/Purged/Tasks.sqlite"]),
        Question(
            tool: "actors",
            arguments: ["store": "\(m)/Tasks.sqlite", "defaults": "\(m)/phtk.plist", "now": .string(now)],
            commandLine: ["actors", "\(m)/Tasks.sqlite", "--defaults", "\(m)/phtk.plist", "--now", now]),
        Question(
            tool: "check",
            arguments: [
                "store": "fixtures/Purged/Tasks.sqlite", "defaults": "fixtures/Purged/defaults.plist",
                "now": .string(now),
            ],
            commandLine: [
                "check", "fixtures/Purged/Tasks.sqlite", "--defaults", "fixtures/Purged/defaults.plist", "--now", now,
            ]),
        Question(
            tool: "transactions", arguments: ["store": "fixtures/AppGroup/Tasks.sqlite", "author": ["app"]],
            commandLine: ["transactions", "fixtures/AppGroup/Tasks.sqlite", "--author", "app"]),
        Question(
            tool: "changes", arguments: ["store": "fixtures/AppGroup/Tasks.sqlite", "type": ["update"]],
            commandLine: ["changes", "fixtures/AppGroup/Tasks.sqlite", "--type", "update"]),
        Question(
            tool: "show", arguments: ["store": "fixtures/Later/Tasks.sqlite", "transaction": 37],
            commandLine: ["show", "fixtures/Later/Tasks.sqlite", "37"]),
        Question(
            tool: "object", arguments: ["store": "fixtures/Later/Tasks.sqlite", "id": "Task/p3"],
            commandLine: ["object", "fixtures/Later/Tasks.sqlite", "Task/p3"]),
        Question(
            tool: "deleted", arguments: ["store": "fixtures/Purged/Tasks.sqlite"],
            commandLine: ["deleted", "fixtures/Purged/Tasks.sqlite"]),
        Question(
            tool: "saves", arguments: ["store": "fixtures/WALSaves/Tasks.sqlite"],
            commandLine: ["saves", "fixtures/WALSaves/Tasks.sqlite"]),
        Question(
            tool: "recover", arguments: ["store": "fixtures/WALSaves/Tasks.sqlite"],
            commandLine: ["recover", "fixtures/WALSaves/Tasks.sqlite"]),
        Question(
            tool: "purge_preview",
            arguments: [
                "store": "\(m)/Tasks.sqlite", "defaults": "\(m)/phtk.plist", "strategy": "apple", "now": .string(now),
            ],
            commandLine: [
                "purge", "\(m)/Tasks.sqlite", "--defaults", "\(m)/phtk.plist", "--strategy", "apple", "--now", now,
            ]),
        Question(
            tool: "cloudkit", arguments: ["store": "fixtures/CloudKit/Tasks.sqlite", "now": .string(now)],
            commandLine: ["cloudkit", "fixtures/CloudKit/Tasks.sqlite", "--now", now]),
        Question(
            tool: "diff", arguments: ["old": "fixtures/AppGroup/Tasks.sqlite", "new": "fixtures/Later/Tasks.sqlite"],
            commandLine: ["diff", "fixtures/AppGroup/Tasks.sqlite", "fixtures/Later/Tasks.sqlite"]),
    ]

    @Test func everyToolIsAsked() {
        #expect(Set(Self.questions.map(\.tool)) == Set(ToolCatalog.reading.map(\.name)))
    }

    @Test(arguments: questions)
    func toolAnswersAsTheCommandLine(_ question: Question) async throws {
        try Self.inRepository()
        try await ClientSession.with { session in
            let result = try await session.call(question.tool, question.arguments)
            #expect(result.isError != true)
            try Self.expectAnswer(result, equals: question.commandLine)
        }
    }

    /// Every tool on the real stores of Apple's frameworks, when the shared stores are here.
    @Test func realStoreAnswersAsTheCommandLine() async throws {
        guard let shared = RealStores.directory else { return }
        let photos = RealStores.photos
        let photos15 = RealStores.photos15
        // A transaction and an object the store holds, as the command line lists them.
        let first = try #require(
            (try Self.commandLineJSON(["transactions", photos, "--limit", "1"])["transactions"] as? [[String: Any]])?
                .first?["transactionNumber"] as? Int)
        let object = try #require(
            (try Self.commandLineJSON(["changes", photos, "--limit", "1"])["changes"] as? [[String: Any]])?.first?[
                "changedObjectID"] as? String)
        let now = Self.now
        let questions: [(String, [String: Value], [String])] = [
            ("find_stores", ["place": [.string(shared)]], ["stores", shared]),
            ("info", ["store": .string(photos)], ["info", photos]),
            // A fixed clock: the cleaners' cut-offs and the lags are measured from it.
            (
                "actors", ["store": .string(photos), "token": [.string(RealStores.photosToken)], "now": .string(now)],
                ["actors", photos, "--token", RealStores.photosToken, "--now", now]
            ),
            (
                "check", ["store": .string(photos), "token": [.string(RealStores.photosToken)], "now": .string(now)],
                ["check", photos, "--token", RealStores.photosToken, "--now", now]
            ),
            ("transactions", ["store": .string(photos)], ["transactions", photos]),
            ("changes", ["store": .string(photos)], ["changes", photos]),
            ("show", ["store": .string(photos), "transaction": .int(first)], ["show", photos, String(first)]),
            ("object", ["store": .string(photos), "id": .string(object)], ["object", photos, object]),
            ("deleted", ["store": .string(photos)], ["deleted", photos]),
            ("saves", ["store": .string(photos15)], ["saves", photos15]),
            ("recover", ["store": .string(photos15)], ["recover", photos15]),
            (
                "purge_preview", ["store": .string(photos), "before": "tx:100"],
                ["purge", photos, "--before", "tx:100"]
            ),
            ("cloudkit", ["store": .string(RealStores.swiftData)], ["cloudkit", RealStores.swiftData]),
            ("diff", ["old": .string(photos), "new": .string(photos15)], ["diff", photos, photos15]),
        ]
        #expect(Set(questions.map(\.0)) == Set(ToolCatalog.reading.map(\.name)))
        // Large enough to hold every answer whole.
        try await ClientSession.with(maxResultBytes: 1 << 30) { session in
            for (tool, arguments, commandLine) in questions {
                let result = try await session.call(tool, arguments)
                #expect(result.isError != true, "\(tool): \(Self.text(result) ?? "")")
                try Self.expectAnswer(result, equals: commandLine)
            }
        }
    }

    /// Every page of a long change list, read to its end, adds up to the command line's list.
    @Test(arguments: [nil, 7] as [Int?])
    func pagesAddUpToTheWholeList(rows: Int?) async throws {
        try Self.inRepository()
        let store = "fixtures/AppGroup/Tasks.sqlite"
        let whole = try Self.commandLineJSON(["changes", store])
        let expected = try #require(whole["changes"] as? [Any])
        try await ClientSession.with(maxResultBytes: 8_192) { session in
            var rowsRead: [Any] = []
            var cursor: String?
            var pages = 0
            repeat {
                var arguments: [String: Value] = ["store": .string(store)]
                if let rows { arguments["limit"] = .int(rows) }
                if let cursor { arguments["cursor"] = .string(cursor) }
                let result = try await session.call("changes", arguments)
                let text = try #require(Self.text(result))
                #expect(text.utf8.count <= 8_192)
                let page = try Self.object(text)
                let info = try #require(page["page"] as? [String: Any])
                let list = try #require(page["changes"] as? [Any])
                if let rows { #expect(list.count <= rows) }
                #expect(info["offset"] as? Int == rowsRead.count)
                #expect(info["total"] as? Int == expected.count)
                rowsRead += list
                cursor = info["nextCursor"] as? String
                pages += 1
                // The rest of the document is the command line's.
                var rest = page
                rest["page"] = nil
                rest["changes"] = whole["changes"]
                #expect(try Self.canonical(rest) == Self.canonical(whole))
            } while cursor != nil && pages < 1_000
            #expect(pages > 1)
            #expect(try Self.canonical(rowsRead) == Self.canonical(expected))
        }
    }

    /// A row too large for a page alone, and an answer too large without a list, come with their
    /// long strings cut as tables cut them, and say how many; the rest is the command line's.
    @Test func longStringsAreCutAsTablesCutThem() async throws {
        try Self.inRepository()
        let dir = try WriteTests.mergeState()
        let store = dir.file("Tasks.sqlite")
        // The widget's author name, 17,500 characters (20,000 bytes): more than a page of 8 KB holds.
        let author = String(repeating: "widget\u{e9}", count: 2_500)
        let update = try Subprocess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                db.execute("UPDATE ATRANSACTIONSTRING SET ZNAME = ? WHERE ZNAME = 'widget'", (sys.argv[2],))
                db.commit()
                """, store, author,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(update.status == 0, "\(String(decoding: update.stderr, as: UTF8.self))")
        let cut = try #require(TextCut.cut(author))
        #expect(cut.hasSuffix("… (17500 characters)") && cut.count == 200 + "… (17500 characters)".count)
        let whole = try Self.commandLineJSON(["transactions", store, "--author", author])
        let rows = try #require(whole["transactions"] as? [[String: Any]])
        #expect(rows.count > 1)
        var answers: [String] = []
        try await ClientSession.with(maxResultBytes: 8_192) { session in
            var cursor: String?
            var index = 0
            repeat {
                var arguments: [String: Value] = ["store": .string(store), "author": [.string(author)]]
                if let cursor { arguments["cursor"] = .string(cursor) }
                let result = try await session.call("transactions", arguments)
                let text = try #require(Self.text(result), "\(result.content)")
                #expect(text.utf8.count <= 8_192)
                answers.append(text)
                let page = try Self.object(text)
                #expect(page["cutStrings"] as? Int == 1)
                let info = try #require(page["page"] as? [String: Any])
                #expect(info["offset"] as? Int == index && info["count"] as? Int == 1)
                var row = try #require((page["transactions"] as? [[String: Any]])?.first)
                #expect(row["author"] as? String == cut)
                row["author"] = author
                #expect(try Self.canonical(row) == Self.canonical(rows[index]))
                cursor = info["nextCursor"] as? String
                index += 1
            } while cursor != nil && index < rows.count + 1
            #expect(index == rows.count)

            // show: one transaction, no list to page; cut whole.
            let number = try #require(rows[0]["transactionNumber"] as? Int)
            let result = try await session.call("show", ["store": .string(store), "transaction": .int(number)])
            let text = try #require(Self.text(result), "\(result.content)")
            #expect(text.utf8.count <= 8_192)
            answers.append(text)
            var shown = try Self.object(text)
            #expect(shown["cutStrings"] as? Int == 1)
            shown["cutStrings"] = nil
            var transaction = try #require(shown["transaction"] as? [String: Any])
            #expect(transaction["author"] as? String == cut)
            transaction["author"] = author
            shown["transaction"] = transaction
            let expected = try Self.commandLineJSON(["show", store, String(number)])
            #expect(try Self.canonical(shown) == Self.canonical(expected))
        }
        try WriteTests.expectValid(answers)
    }

    /// Bad calls are protocol errors or tool errors naming the problem, and the server goes on.
    @Test func badCallsAreNamedAndTheServerGoesOn() async throws {
        try Self.inRepository()
        let dir = try TemporaryDirectory()
        let hostile = dir.file("hostile.sqlite")
        try Data("SQLite format 3\u{0}\u{1b}[31mnot a database".utf8).write(to: URL(fileURLWithPath: hostile))
        try await ClientSession.with { session in
            for (tool, arguments, words) in [
                ("no_such_tool", [:], ["no tool 'no_such_tool'"]),
                ("info", [:], ["needs 'store'"]),
                ("info", ["store": true], ["'store' must be a string"]),
                ("info", ["store": "fixtures/AppGroup/Tasks.sqlite", "execute": true], ["no argument 'execute'"]),
                (
                    "purge_preview", ["store": "fixtures/AppGroup/Tasks.sqlite", "execute": true],
                    ["no argument 'execute'"]
                ),
                ("changes", ["store": "fixtures/AppGroup/Tasks.sqlite", "limit": 0], ["'limit'"]),
                ("changes", ["store": "fixtures/AppGroup/Tasks.sqlite", "cursor": "zz"], ["'cursor'"]),
            ] as [(String, [String: Value], [String])] {
                do {
                    let result = try await session.call(tool, arguments)
                    Issue.record("\(tool) \(arguments) answered: \(result)")
                } catch let error as MCPError {
                    for word in words { #expect(error.localizedDescription.contains(word), "\(error)") }
                }
            }
            for (arguments, word) in [
                (["store": Value.string(dir.file("missing.sqlite"))], "missing.sqlite"),
                (["store": .string(hostile)], "hostile.sqlite"),
                (["store": "--execute"], "--execute"),
            ] {
                let result = try await session.call("info", arguments)
                #expect(result.isError == true)
                let text = try #require(Self.text(result))
                #expect(text.contains(word), "\(text)")
                #expect(!text.contains("\u{1b}"))
            }
            let result = try await session.call("info", ["store": "fixtures/AppGroup/Tasks.sqlite"])
            #expect(result.isError != true)
        }
    }

    /// The tools listed, their schemas and annotations, as `Tests/MCPGoldens/tools.json` holds
    /// them (`CDHIST_RECORD_GOLDENS=1` writes it again).
    @Test func toolListIsItsGolden() async throws {
        try await ClientSession.with { session in
            let (tools, _) = try await session.client.listTools()
            #expect(tools.map(\.name) == ToolCatalog.reading.map(\.name))
            for tool in tools {
                #expect(tool.annotations.readOnlyHint == true)
                #expect(tool.annotations.destructiveHint == false)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(tools)
            let golden = Repository.root.appendingPathComponent("Tests/MCPGoldens/tools.json")
            if ProcessInfo.processInfo.environment["CDHIST_RECORD_GOLDENS"] == "1" {
                try (data + Data("\n".utf8)).write(to: golden)
            }
            let expected = try Data(contentsOf: golden)
            #expect(
                String(decoding: data + Data("\n".utf8), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    /// The manual's sections are resources, as plain text; the prompts are plans that name tools.
    @Test func manualAndPromptsAreServed() async throws {
        try await ClientSession.with { session in
            let (resources, _) = try await session.client.listResources()
            let titles = resources.map(\.name)
            for title in ["NAME", "COMMANDS", "JSON OUTPUT", "EXIT STATUS"] {
                #expect(titles.contains(title), "\(titles)")
            }
            let commands = try #require(resources.first { $0.name == "COMMANDS" })
            let contents = try await session.client.readResource(uri: commands.uri)
            let text = try #require(contents.first?.text)
            #expect(text.contains("--max-result-bytes bytes"))
            #expect(!text.contains(".It "))
            do {
                _ = try await session.client.readResource(uri: "cdhist://manual/none")
                Issue.record("an unknown resource was read")
            } catch let error as MCPError {
                #expect(error.localizedDescription.contains("cdhist://manual/none"))
            }
            let (prompts, _) = try await session.client.listPrompts()
            #expect(prompts.map(\.name) == ["why_missing_changes", "is_it_safe_to_purge", "what_did_this_save_change"])
            let plan = try await session.client.getPrompt(
                name: "why_missing_changes",
                arguments: ["store": "fixtures/MergeState/Tasks.sqlite", "defaults": "fixtures/MergeState/phtk.plist"])
            guard case .text(let words)? = plan.messages.first?.content else {
                Issue.record("the prompt is not text: \(plan)")
                return
            }
            let tools = Set(ToolCatalog.reading.map(\.name))
            // Every tool a plan calls exists.
            let called = words.matches(of: try Regex("Call ([a-z_]+)")).compactMap {
                $0.output[1].substring.map(String.init)
            }
            #expect(!called.isEmpty && called.allSatisfy(tools.contains), "\(called)")
            #expect(words.contains("fixtures/MergeState/phtk.plist"))
            do {
                _ = try await session.client.getPrompt(name: "what_did_this_save_change", arguments: [:])
                Issue.record("a prompt without its required argument was given")
            } catch let error as MCPError {
                #expect(error.localizedDescription.contains("'store'"))
            }
        }
    }

    // MARK: - Helpers

    /// The tests name fixtures relative to the clone, as a user in it types them.
    static func inRepository() throws {
        try #require(FileManager.default.currentDirectoryPath == Repository.root.path, "run from the clone's root")
    }

    /// The result's first text: the document.
    static func text(_ result: CallTool.Result) -> String? {
        guard case .text(let text, _, _)? = result.content.first else { return nil }
        return text
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// `value` (parsed JSON) written with sorted keys: equal documents give equal bytes.
    static func canonical(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The command line's JSON document for `arguments` (run in this process).
    static func commandLineJSON(_ arguments: [String]) throws -> [String: Any] {
        let dir = try TemporaryDirectory()
        let out = dir.file("out")
        let err = dir.file("err")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        var environment = ProcessInfo.processInfo.environment
        environment["CDHIST_FORMAT"] = nil
        let status = Entry.run(
            arguments + ["--format", "json"],
            console: Console(standardOutput: outHandle, standardError: errHandle, environment: environment))
        try outHandle.close()
        try errHandle.close()
        // FileContents: Data(contentsOf:) leaks 4 KiB for every empty file it reads (stderr here).
        let errors = String(decoding: FileContents.read(err) ?? Data(), as: UTF8.self)
        #expect(status < 2, "\(arguments): \(errors)")
        let document = try #require(FileContents.read(out))
        return try #require(try JSONSerialization.jsonObject(with: document) as? [String: Any])
    }

    /// `result` holds, as text and as structured content, what the command line prints.
    static func expectAnswer(_ result: CallTool.Result, equals commandLine: [String]) throws {
        let expected = try commandLineJSON(commandLine)
        let document = try #require(text(result))
        #expect(try canonical(try object(document)) == canonical(expected), "\(commandLine)")
        let structured = try #require(result.structuredContent)
        let decoded = try #require(
            JSONSerialization.jsonObject(with: JSONEncoder().encode(structured)) as? [String: Any])
        #expect(try canonical(decoded) == canonical(expected), "\(commandLine)")
    }
}

/// A client connected to a server of this process through the SDK's in-memory transport.
struct ClientSession {
    let client: Client

    static func with(
        maxResultBytes: Int = HistoryServer.Options.defaultMaxResultBytes, allowWrites: Bool = false,
        _ body: (ClientSession) async throws -> Void
    ) async throws {
        let (clientSide, serverSide) = await InMemoryTransport.createConnectedPair()
        // The manual of the clone, as a server built in it finds it.
        let server = try await HistoryServer(
            options: .init(maxResultBytes: maxResultBytes, allowWrites: allowWrites),
            manual: Repository.root.appendingPathComponent(".build/debug/cdhist-mcp"))
        let serving = Task { try await server.serve(serverSide) }
        let client = Client(name: "cdhist-tests", version: "1")
        _ = try await client.connect(transport: clientSide)
        do {
            try await body(ClientSession(client: client))
        } catch {
            await client.disconnect()
            serving.cancel()
            throw error
        }
        await client.disconnect()
        serving.cancel()
    }

    func call(_ tool: String, _ arguments: [String: Value]) async throws -> CallTool.Result {
        let context: RequestContext<CallTool.Result> = try await client.callTool(name: tool, arguments: arguments)
        return try await context.value
    }
}

/// The built server, `cdhist-mcp` and `cdhist mcp`, driven through its standard input and output
/// by a scripted session that ends when its input does.
@Suite struct BinaryServerTests {
    /// The folder of the built products (beside the test bundle).
    static let products: URL = {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("cdhist-mcp").path) {
                return url
            }
        }
        return Repository.root.appendingPathComponent(".build/debug")
    }()

    @Test(arguments: [["cdhist-mcp"], ["cdhist", "mcp"]])
    func scriptedSessionIsAnswered(_ command: [String]) throws {
        try ServerTests.inRepository()
        let store = "fixtures/MergeState/Tasks.sqlite"
        let requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"info","arguments":{"store":"\#(store)"}}}"#,
            #"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"info""#,
            #"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm","arguments":{}}}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"info","arguments":{"store":"fixtures/none.sqlite"}}}"#,
            #"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"changes","arguments":{"store":"\#(store)","limit":2}}}"#,
        ]
        let dir = try TemporaryDirectory()
        let input = dir.file("input.jsonl")
        try Data((requests.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let result = try Subprocess.run(
            Self.products.appendingPathComponent(command[0]).path, Array(command.dropFirst()),
            environment: ProcessInfo.processInfo.environment, stdinPath: input, timeout: 120)
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        var responses: [Int: [String: Any]] = [:]
        var parseErrors = 0
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            // Standard output carries protocol messages only.
            let message = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(message["jsonrpc"] as? String == "2.0")
            if let id = message["id"] as? Int {
                responses[id] = message
            } else if (message["error"] as? [String: Any])?["code"] as? Int == -32700 {
                parseErrors += 1
            }
        }
        #expect(parseErrors == 1)
        let server = (responses[1]?["result"] as? [String: Any])?["serverInfo"] as? [String: Any]
        #expect(server?["name"] as? String == "cdhist")
        let tools = (responses[2]?["result"] as? [String: Any])?["tools"] as? [[String: Any]]
        #expect(tools?.compactMap { $0["name"] as? String } == ToolCatalog.reading.map(\.name))
        let info = try #require(responses[3]?["result"] as? [String: Any])
        #expect((info["structuredContent"] as? [String: Any])?["kind"] as? String == "info")
        #expect(((responses[5]?["error"] as? [String: Any])?["message"] as? String)?.contains("no tool 'rm'") == true)
        let missing = try #require(responses[6]?["result"] as? [String: Any])
        #expect(missing["isError"] as? Bool == true)
        let text = ((missing["content"] as? [[String: Any]])?.first?["text"] as? String) ?? ""
        #expect(text.contains("fixtures/none.sqlite"), "\(text)")
        let page = (responses[7]?["result"] as? [String: Any])?["structuredContent"] as? [String: Any]
        #expect((page?["changes"] as? [Any])?.count == 2)
        #expect((page?["page"] as? [String: Any])?["total"] as? Int == 67)
    }
}
