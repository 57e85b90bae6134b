import Foundation
import HistoryFixtures
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct JSONTextTests {
    @Test func valuesKeepTheirKindsAndOrder() throws {
        let value = try JSONText.parse(
            Array(#" {"b": [1, -0, 2.5, 1e3, 9223372036854775808, true, null], "a": "x\u00e9\ud83d\ude00\n"} "#.utf8))
        #expect(
            value
                == .object([
                    (
                        "b",
                        .array([
                            .integer(1), .integer(0), .number(2.5), .number(1000), .number(9_223_372_036_854_775_808),
                            .bool(true), .null,
                        ])
                    ),
                    ("a", .string("xé😀\n")),
                ]))
        // A lone surrogate becomes U+FFFD rather than an error or a trap.
        #expect(try JSONText.parse(Array(#"["\ud800x"]"#.utf8)) == .array([.string("\u{FFFD}x")]))
        #expect(try JSONText.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == .array([]))
    }

    @Test func malformedTextIsRefusedWithWhere() {
        let cases: [(String, String)] = [
            ("{\"a\":1} x", "text after the JSON value"), ("[01]", "leading zero"), ("[1.]", "fraction without digits"),
            ("{\"a\" 1}", "expected ':'"), ("[\"a\nb\"]", "control character"), ("[\"\\q\"]", "unknown escape"),
            ("[tru]", "unexpected character"), ("{", "expected a member name"), ("[\"\\u12\"]", "\\u escape"),
        ]
        for (text, reason) in cases {
            #expect(throws: JSONTextError.self) { try JSONText.parse(Array(text.utf8)) }
            do { _ = try JSONText.parse(Array(text.utf8)) } catch {
                #expect("\(error)".contains(reason), "\(text): \(error)")
            }
        }
        #expect(throws: JSONTextError.self) { try JSONText.parse([UInt8(ascii: "\""), 0xFF, UInt8(ascii: "\"")]) }
        // Nesting past the limit is refused instead of recursing until the stack ends.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        do {
            _ = try JSONText.parse(Array(deep.utf8))
            Issue.record("accepted 100,000 levels")
        } catch {
            #expect("\(error)".contains("nested deeper than 512"))
        }
        #expect(JSONText.looksLikeJSON(Array("  \n{".utf8)))
        #expect(!JSONText.looksLikeJSON(Array("bplist00".utf8)))
    }
}

@Suite struct JSONTokenTests {
    let uuid = Scenarios.appGroupUUID

    @Test func aStoreMappedToANumberAtAnyDepthIsAToken() throws {
        let nested = Array(#"{"v":1,"payload":[{"meta":"x"},{"stores":{"\#(uuid.lowercased())":42,"other":7}}]}"#.utf8)
        #expect(try JSONTokenDecoder.decode(json: nested, source: "t.json").transactionNumber(forStore: uuid) == 42)
        let two = Array(#"{"a":{"\#(uuid)":5},"b":{"\#(MergeStateFixtures.foreignUUID)":9}}"#.utf8)
        #expect(try JSONTokenDecoder.decode(json: two, source: "t.json").transactionNumbers.count == 2)
        // The same store twice with one number is one entry; with two numbers it is no usable token.
        let same = Array(#"[{"\#(uuid)":5},{"\#(uuid)":5}]"#.utf8)
        #expect(try JSONTokenDecoder.decode(json: same, source: "t.json").transactionNumbers == [uuid: 5])
        #expect(
            throws: TokenError.malformedToken(
                source: "t.json", reason: "it gives store \(uuid) two transactions, 5 and 6")
        ) {
            try JSONTokenDecoder.decode(json: Array(#"[{"\#(uuid)":6},{"\#(uuid)":5}]"#.utf8), source: "t.json")
        }
    }

    @Test func jsonWithoutAMapIsNotAToken() {
        for text in [#"{"showDone":true}"#, #"{"\#(uuid)":"5"}"#, #"{"not-a-uuid":5}"#, "[]"] {
            #expect(
                throws: TokenError.notAToken(
                    source: "s.json", reason: "JSON without a store identifier mapped to a transaction number")
            ) {
                try JSONTokenDecoder.decode(json: Array(text.utf8), source: "s.json")
            }
        }
        #expect(throws: TokenError.self) { try JSONTokenDecoder.decode(json: Array("{\"a\":".utf8), source: "s.json") }
        // A number no store gives a transaction (2^64-1, a fraction) is said, never rounded into one.
        for (text, shown) in [("18446744073709551615", "1.8446744073709552e+19"), ("5.5", "5.5")] {
            #expect(
                throws: TokenError.malformedToken(
                    source: "s.json",
                    reason:
                        """
                        it gives store \(uuid) the number \(shown), not a transaction number (a whole number up \
                        to 9223372036854775807)
                        """
                )
            ) {
                try JSONTokenDecoder.decode(
                    json: Array(#"{"storeTokens":{"\#(uuid)":\#(text)}}"#.utf8), source: "s.json")
            }
        }
    }

    @Test func rewriteChangesOnlyTheNumber() throws {
        let text = "{ \"storeTokens\" : {\"\(uuid)\":   31 }, \"version\":1 }\n"
        let out = try #require(JSONTokenDecoder.rewrite(json: Array(text.utf8), storeUUID: uuid, to: 1234))
        #expect(String(decoding: out, as: UTF8.self) == text.replacingOccurrences(of: "31", with: "1234"))
        #expect(
            JSONTokenDecoder.rewrite(json: Array(text.utf8), storeUUID: MergeStateFixtures.foreignUUID, to: 1) == nil)
    }

    @Test func tokenFilesAndDefaultsHoldJSONTokens() throws {
        let dir = try TemporaryDirectory()
        for (name, bytes) in CloudKitFixtures.files() {
            try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        let file = try TokenFileReader.read(path: dir.file("swiftdata-token.json"), actor: "app")
        #expect(file.position == .token(HistoryToken(storeUUID: uuid, transactionNumber: 31)))
        try Data(#"{"theme":"dark"}"#.utf8).write(to: URL(fileURLWithPath: dir.file("settings.json")))
        #expect(throws: TokenError.self) { try TokenFileReader.read(path: dir.file("settings.json"), actor: "x") }

        // As a string and as data, under keys of the app's own; JSON that is no token is noted.
        let defaults = try DefaultsReader.read(path: dir.file("swiftdata.plist"), storeUUID: uuid)
        #expect(defaults.records.map(\.actor) == ["historyToken.app", "historyToken.widget"])
        #expect(defaults.records.map(\.keyFormat) == [.jsonToken, .jsonToken])
        #expect(
            defaults.records.map(\.position) == [
                .token(HistoryToken(storeUUID: uuid, transactionNumber: 34)),
                .token(HistoryToken(storeUUID: uuid, transactionNumber: 20)),
            ])
        #expect(defaults.ignoredKeyCount == 5)
        #expect(defaults.notes.count == 1)
        #expect(defaults.notes.first?.description.contains("[filterSettings]: not a history token") == true)
        // A key prefix names the actors.
        let prefixed = try DefaultsReader.read(
            path: dir.file("swiftdata.plist"), storeUUID: uuid, customPrefixes: ["historyToken."])
        #expect(prefixed.records.map(\.actor) == ["app", "widget"])
        #expect(prefixed.records.map(\.keyFormat) == [.customPrefix("historyToken."), .customPrefix("historyToken.")])
    }

    /// An app's setting that maps UUIDs to counts is not a token of another store.
    @Test func settingsMappingUUIDsAreNotForeignTokens() throws {
        let dir = try TemporaryDirectory()
        let plist = PropertyList.encodeBinary(
            .dictionary([
                "unreadCountsByList": .string(#"{"3F2504E0-4F89-11D3-9A0C-0305E82C3301":4}"#),
                "syncToken": .string(#"{"3F2504E0-4F89-11D3-9A0C-0305E82C3301":4}"#),
                "listState": .string(#"{"\#(uuid)":12}"#),
            ]))
        try Data(plist).write(to: URL(fileURLWithPath: dir.file("settings.plist")))
        let state = try DefaultsReader.read(path: dir.file("settings.plist"), storeUUID: uuid)
        // Under a key that says token, a map of another store is a foreign token; this store's is a token anywhere.
        #expect(state.records.map(\.actor) == ["listState", "syncToken"])
        #expect(state.notes.count == 1 && state.notes.first?.description.contains("[unreadCountsByList]") == true)
    }

    /// JSON that is no readable token is never rewritten into another format.
    @Test func aDamagedJSONTokenIsNotRepairedIntoAnotherFormat() throws {
        let dir = try TemporaryDirectory()
        let plist = PropertyList.encodeBinary(
            .dictionary([
                "historyToken.app": .data(Array(#"[{"\#(uuid)":3},{"\#(uuid)":4}]"#.utf8))
            ]))
        try Data(plist).write(to: URL(fileURLWithPath: dir.file("d.plist")))
        try StoreWriter.write(Scenarios.all.first { $0.name == "CloudKit" }!.store, to: dir.file("Tasks.sqlite"))
        let store = try HistoryStore.open(dir.file("Tasks.sqlite"))
        #expect(throws: RepairError.self) {
            try DefaultsRepair.plan(
                path: dir.file("d.plist"), actor: "app", target: .latest, store: store,
                customPrefixes: ["historyToken."])
        }
    }

    @Test func repairRewritesAJSONTokenInPlace() throws {
        let dir = try TemporaryDirectory()
        for (name, bytes) in CloudKitFixtures.files() {
            try Data(bytes).write(to: URL(fileURLWithPath: dir.file(name)))
        }
        try StoreWriter.write(Scenarios.all.first { $0.name == "CloudKit" }!.store, to: dir.file("Tasks.sqlite"))
        let store = try HistoryStore.open(dir.file("Tasks.sqlite"))
        let plan = try DefaultsRepair.plan(
            path: dir.file("swiftdata.plist"), actor: "widget", target: .latest, store: store,
            customPrefixes: ["historyToken."])
        #expect(plan.changes.map(\.key) == ["historyToken.widget"])
        #expect(plan.changes.first?.new == .data(CloudKitFixtures.jsonToken(34)))
        let asString = try DefaultsRepair.plan(
            path: dir.file("swiftdata.plist"), actor: "historyToken.app", target: .transaction(5), store: store)
        #expect(asString.changes.first?.new == .string(String(decoding: CloudKitFixtures.jsonToken(5), as: UTF8.self)))
        #expect(throws: RepairError.self) {
            try DefaultsRepair.plan(
                path: dir.file("swiftdata.plist"), actor: "historyToken.app", target: .date(Scenarios.baseTime),
                store: store)
        }
    }
}
