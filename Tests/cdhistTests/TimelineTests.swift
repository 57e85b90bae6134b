import Foundation
import GRDB
import HistoryFixtures
import TestSupport
import Testing

/// `cdhist timeline`: what the terminal chart draws is what the JSON counts,
/// and the JSON counts are what `authors` and `actors` report.
@Suite struct TimelineTests {
    static let now = "2025-03-06T09:00:00Z"
    static let purged = Repository.fixtures + "/Purged"

    /// Stores with their merge state and a cut-off.
    static var cases: [[String]] {
        var cases = [
            ReportTests.appGroupArguments + ["--strategy", "phtk-2"],
            [
                purged + "/Tasks.sqlite", "--defaults", purged + "/defaults.plist", "--token",
                "widget=" + purged + "/widget-token.data",
                "--now", now, "--utc", "--purge-before", "tx:30",
            ],
            [Repository.fixtures + "/WALPending/Tasks.sqlite", "--utc"],
            [
                "--group-container", Repository.fixtures + "/GroupContainer/" + MergeStateFixtures.containerUUID,
                "--now", now, "--utc",
            ],
        ]
        if RealStores.available {
            cases += [
                [
                    RealStores.photos, "--token", "photos=" + RealStores.photosToken, "--actor", "photos", "--utc",
                    "--purge-before", "2021-01-01",
                ],
                [RealStores.swiftData, "--utc"],
            ]
        }
        return cases
    }

    /// The chart of `arguments` at `width`, read back: its lines, the lanes, and the column of each marker.
    struct Chart {
        var lines: [String]
        var labelWidth: Int
        /// Chart cells of each lane row, in order.
        var lanes: [(row: [Character], total: Int)]
        /// Marker name → the column of its glyph and the glyph.
        var markers: [String: (column: Int, glyph: Character)]

        init(_ text: String, bucketCount: Int, markerNames: [String]) throws {
            lines = text.components(separatedBy: "\n")
            let axisIndex = try #require(
                lines.firstIndex {
                    !$0.isEmpty && $0.trimmingCharacters(in: .whitespaces).allSatisfy { "─┬-+".contains($0) }
                })
            let axis = lines[axisIndex]
            labelWidth = axis.prefix { $0 == " " }.count - 1
            #expect(
                axis.trimmingCharacters(in: .whitespaces).count == bucketCount, "the axis is not one column per bucket")
            let firstLane = try #require(lines.firstIndex(of: "")) + 1
            let start = labelWidth + 1
            lanes = lines[firstLane..<axisIndex].map { line in
                let chars = Array(line)
                let cells = Array(chars[start..<min(chars.count, start + bucketCount)])
                return (
                    cells + Array(repeating: " ", count: bucketCount - cells.count),
                    Int(String(chars[min(chars.count, start + bucketCount)...]).trimmingCharacters(in: .whitespaces))
                        ?? -1
                )
            }
            var markers: [String: (Int, Character)] = [:]
            for line in lines[(axisIndex + 2)...].prefix(while: { !$0.isEmpty }) {
                let chars = Array(line)
                let label = String(chars.prefix(labelWidth)).trimmingCharacters(in: .whitespaces)
                guard let name = markerNames.first(where: { $0 == label }),
                    let column = chars[start...].firstIndex(where: { !"·.".contains($0) })
                else { continue }
                markers[name] = (column - start, chars[column])
            }
            self.markers = markers
        }
    }

    @Test(arguments: [80, 200]) func chartDrawsTheCountsOfEveryAuthor(width: Int) throws {
        for arguments in Self.cases {
            let table = try CLI.run(["timeline"] + arguments + ["--format", "table", "--width", String(width)])
            #expect(table.status == 0, "\(arguments): \(table.stderr)")
            let doc = try CLI.run(["timeline"] + arguments + ["--format", "json", "--width", String(width)]).json()
            let bucketCount = try #require(doc["bucketCount"] as? Int)
            let lanes = try #require(doc["lanes"] as? [[String: Any]])
            let markers = try #require(doc["markers"] as? [[String: Any]])
            let chart = try Chart(
                table.stdout, bucketCount: bucketCount, markerNames: markers.compactMap { $0["name"] as? String })
            #expect(chart.lines.allSatisfy { $0.count <= width }, "\(arguments): a line is wider than \(width)")

            // The JSON counts are the authors' transactions.
            let authors = try #require(
                try CLI.run(
                    ["authors"]
                        + arguments.filter { $0.hasSuffix(".sqlite") || $0.hasSuffix(".store") }
                        .prefix(1) + ["--by", "author"] + Self.groupStore(arguments)
                ).json()["authors"] as? [[String: Any]])
            #expect(
                Dictionary(
                    uniqueKeysWithValues: lanes.map {
                        ($0["author"] as? String ?? "-", $0["transactionCount"] as? Int ?? -1)
                    })
                    == Dictionary(
                        uniqueKeysWithValues: authors.map {
                            ($0["value"] as? String ?? "-", $0["transactionCount"] as? Int ?? -2)
                        }))
            for lane in lanes {
                #expect((lane["counts"] as? [Int])?.reduce(0, +) == lane["transactionCount"] as? Int)
            }

            // Each drawn lane has a block exactly where its author has transactions, and its total at the end.
            // Core Data's migrations and Apple's other authors draw one lane per family.
            let families = Set(
                lanes.compactMap { lane -> String? in
                    let author = lane["author"] as? String ?? ""
                    return author.hasPrefix("com.apple.coredata.schemamigrator")
                        ? "migration" : author.hasPrefix("com.apple.") ? "apple" : nil
                })
            let framework = lanes.filter { ($0["author"] as? String)?.hasPrefix("com.apple.") == true }.count
            #expect(chart.lanes.count == min(lanes.count - framework + families.count, 7))
            for (drawn, lane) in zip(chart.lanes, lanes) where chart.lanes.count == lanes.count {
                let counts = try #require(lane["counts"] as? [Int])
                #expect(
                    drawn.row.indices.filter { drawn.row[$0] != " " } == counts.indices.filter { counts[$0] > 0 },
                    "\(lane["author"] ?? "-")")
                #expect(drawn.total == lane["transactionCount"] as? Int)
            }

            // Markers stand in the bucket of their time.
            let first = doc["firstCocoaTimestamp"] as? Double ?? 0
            let bucketSeconds = try #require(doc["bucketSeconds"] as? Double)
            for marker in markers {
                let name = try #require(marker["name"] as? String)
                guard let t = marker["cocoaTimestamp"] as? Double, t >= first else { continue }
                let column = min(Int((t - first) / bucketSeconds), bucketCount - 1)
                if t <= (doc["lastCocoaTimestamp"] as? Double ?? 0) {
                    #expect(chart.markers[name]?.column == column, "\(name)")
                }
            }
        }
    }

    /// Core Data's migrations (one author per model version) share a lane in the chart; JSON keeps each.
    @Test(.enabled(if: RealStores.available)) func migrationAuthorsShareALane() throws {
        let chart = try CLI.run(["timeline", RealStores.photos, "--format", "table"], environment: ["COLUMNS": "80"])
            .lines
        let lane = try #require(chart.first { $0.hasPrefix("migrations (3) ") })
        #expect(lane.hasSuffix(" 3"))
        #expect(!chart.contains { $0.hasPrefix("com.apple.") })
        let json = try CLI.run(["timeline", RealStores.photos]).json()
        let lanes = try #require(json["lanes"] as? [[String: Any]])
        #expect(
            lanes.filter { ($0["author"] as? String)?.hasPrefix("com.apple.coredata.schemamigrator") == true }.count
                == 3)
    }

    @Test func appGroupMarkersAgreeWithTheActors() throws {
        let arguments = ReportTests.appGroupArguments + ["--strategy", "phtk-2", "--width", "80", "--format", "table"]
        let text = try CLI.run(["timeline"] + arguments).stdout
        let doc = try CLI.run(["timeline"] + arguments.dropLast(2) + ["--format", "json"]).json()
        let chart = try Chart(
            text, bucketCount: try #require(doc["bucketCount"] as? Int),
            markerNames: ["app", "widget", "shareExtension", "cut-off"])
        let actors = try CLI.run(["actors"] + ReportTests.appGroupArguments).json()
        let phtk2 = try #require(
            (actors["cleaners"] as? [[String: Any]])?.first { $0["strategy"] as? String == "phtk-2" })
        // phtk-2 is held back by widget: the cut-off is at widget's position.
        #expect(phtk2["heldBackBy"] as? String == "widget")
        #expect(
            chart.markers["cut-off"]?.glyph == "✂"
                && chart.markers["cut-off"]?.column == chart.markers["widget"]?.column)
        // app merged the last transaction: its marker is in the last column.
        #expect(
            (actors["actors"] as? [[String: Any]])?.first { $0["actor"] as? String == "app" }?["lastMergedTransaction"]
                as? Int == 34)
        #expect(
            chart.markers["app"]?.column == (doc["bucketCount"] as? Int ?? 0) - 1 && chart.markers["app"]?.glyph == "▲")
        #expect(text.contains("▲ widget") && text.contains("behind, merged up to #20 2025-03-04 11:30:00.000Z (date)"))
        #expect(
            text.replacingOccurrences(of: "\n", with: " ").hasPrefix(
                "Tasks.sqlite: 34 transactions by 6 authors (1 without an author), 2025-03-03 09:00:00.000Z to"),
            "\(text)")
        // Ticks stand at whole times (UTC midnight, noon), labelled from their own column.
        let lines = text.components(separatedBy: "\n")
        let axisIndex = try #require(lines.firstIndex { $0.contains("┬") })
        let axis = Array(lines[axisIndex])
        let labels = Array(lines[axisIndex + 1])
        let first = try #require(doc["firstCocoaTimestamp"] as? Double)
        let seconds = try #require(doc["bucketSeconds"] as? Double)
        for (label, iso) in [("03-04 00:00", "2025-03-04T00:00:00Z"), ("03-04 12:00", "2025-03-04T12:00:00Z")] {
            let t = try #require(ISO8601DateFormatter().date(from: iso)).timeIntervalSinceReferenceDate
            let column = chart.labelWidth + 1 + Int((t - first) / seconds)
            #expect(axis[column] == "┬" && String(labels[column..<(column + label.count)]) == label, "\(label)")
        }
    }

    /// --after and --before zoom in as they filter other commands; --by draws a lane per bundle
    /// ID or process, with the counts authors gives.
    @Test(arguments: [ReportTests.appGroupArguments[0]] + (RealStores.available ? [RealStores.photos] : []))
    func zoomsAndDrawsLanesByAnyField(store: String) throws {
        let all = try #require(try CLI.run(["transactions", store]).json()["transactions"] as? [[String: Any]])
        let middle = try #require(all[all.count / 2]["transactionNumber"] as? Int)
        let zoomed = try CLI.run(["timeline", store, "--after", "#\(middle)"]).json()
        #expect(
            zoomed["transactionCount"] as? Int == all.filter { ($0["transactionNumber"] as? Int ?? 0) > middle }.count)
        #expect(
            zoomed["firstCocoaTimestamp"] as? Double == all.first { ($0["transactionNumber"] as? Int ?? 0) > middle }?[
                "cocoaTimestamp"] as? Double)
        let before = try #require(all[all.count / 3]["timestamp"] as? String)
        let early = try CLI.run(["timeline", store, "--before", before, "--utc"]).json()
        let earlier = try #require(
            try CLI.run(["transactions", store, "--before", before, "--utc"]).json()["transactions"] as? [[String: Any]]
        )
        #expect(early["transactionCount"] as? Int == earlier.count)
        for (field, key) in [("bundle", "bundleIDs"), ("process", "processIDs")] {
            let doc = try CLI.run(["timeline", store, "--by", field]).json()
            let lanes = try #require(doc["lanes"] as? [[String: Any]])
            let counts = Dictionary(
                uniqueKeysWithValues: lanes.map { ($0["value"] as? String ?? "-", $0["transactionCount"] as? Int ?? 0) }
            )
            let summary = try #require(try CLI.run(["authors", store, "--by", field]).json()[key] as? [[String: Any]])
            let expected = Dictionary(
                uniqueKeysWithValues: summary.map {
                    ($0["value"] as? String ?? "-", $0["transactionCount"] as? Int ?? 0)
                })
            #expect(counts == expected, "\(field)")
            #expect(lanes.allSatisfy { $0["author"] is NSNull })
        }
        let table = try CLI.run(
            ["timeline", store, "--by", "process", "--format", "table"], environment: ["COLUMNS": "80"]
        ).stdout
        #expect(table.contains(" by ") && table.contains(" process") && !table.contains("processs"), "\(table)")
    }

    @Test func purgedStoreMarksWhatLiesOutsideTheHistory() throws {
        let arguments = [
            Self.purged + "/Tasks.sqlite", "--defaults", Self.purged + "/defaults.plist", "--token",
            "widget=" + Self.purged + "/widget-token.data", "--now", Self.now, "--utc", "--width", "100", "--format",
            "table",
        ]
        let text = try CLI.run(["timeline"] + arguments + ["--purge-before", "tx:99"]).stdout
        let bucketCount = try #require(
            try CLI.run(["timeline"] + arguments.dropLast(2) + ["--purge-before", "tx:99"]).json()["bucketCount"]
                as? Int)
        let chart = try Chart(text, bucketCount: bucketCount, markerNames: ["app", "widget", "cut-off"])
        // app's date is older than the oldest transaction (missed-changes); the cut-off is past the newest.
        #expect(chart.markers["app"]?.column == 0 && chart.markers["app"]?.glyph == "◂")
        #expect(chart.markers["cut-off"]?.glyph == "▸" && chart.markers["cut-off"]?.column == bucketCount - 1)
        // widget's token names a purged transaction: no place on the axis, said in the legend.
        #expect(chart.markers["widget"] == nil)
        #expect(text.contains("▲ widget") && text.contains("expired, merged up to #15, gone (token)"))
        #expect(text.contains("after the last transaction (before tx:99)"))
        #expect(text.contains("◂ ▸ before the first or after the last transaction"))
    }

    @Test func asciiDrawsTheSameChartWithPlainCharacters() throws {
        let arguments =
            ["timeline"] + ReportTests.appGroupArguments + [
                "--strategy", "phtk-1.0.0", "--width", "80", "--format", "table",
            ]
        let unicode = try CLI.run(arguments).stdout
        let ascii = try CLI.run(arguments + ["--ascii"]).stdout
        #expect(ascii.utf8.allSatisfy { $0 < 0x80 }, "--ascii wrote a non-ASCII byte")
        #expect(unicode.contains("▲") && unicode.contains("–"))
        let a = ascii.components(separatedBy: "\n")
        let u = unicode.components(separatedBy: "\n")
        #expect(a.count == u.count)
        // Same blocks in the same places: every Unicode level has its ASCII level.
        let levels = Dictionary(uniqueKeysWithValues: zip(" ▁▂▃▄▅▆▇█", " .:-=+*#@"))
        for (ua, aa) in zip(u, a)
        where ua.contains(where: { "▁▂▃▄▅▆▇█".contains($0) }) && !ua.contains("transactions in one column") {
            #expect(
                String(ua.suffix(ua.count - 21).map { levels[$0] ?? $0 }) == String(aa.suffix(aa.count - 21)), "\(ua)")
        }
    }

    @Test func readOnlyAndTheSameInTheSession() throws {
        for folder in ["AppGroup", "Purged", "WALPending", "MergeState"].map({ Repository.fixtures + "/" + $0 }) {
            let store = folder + "/Tasks.sqlite"
            let before = try DirectoryState(folder)
            for format in ["table", "json", "ndjson", "csv"] {
                let words = [
                    "timeline", "--width", "90", "--utc", "--format", format, "--strategy", "swiftlee", "--now",
                    Self.now,
                ]
                let oneShot = try CLI.run([words[0], store] + words.dropFirst())
                #expect(oneShot.status == 0 && !oneShot.stdout.isEmpty, "\(store) \(format): \(oneShot.stderr)")
                let session = try CLI.run([store, "-c", words.joined(separator: " ")])
                #expect(session.stdout == oneShot.stdout, "\(store) \(format)")
            }
            #expect(try DirectoryState(folder) == before, "\(folder) changed")
        }
        let csv = try CLI.run(["timeline", ReportTests.appGroup, "--format", "csv", "--width", "40"]).lines
        // One table: the buckets' rows, then the markers' (none here), each under its section.
        #expect(
            csv.first
                == """
                section,bucketStart,app,widget,NSCloudKitMirroringDelegate.export,shareExtension,NSCloudKitMirroringDelegate.import,-,
                """
                + "NSCloudKitMirroringDelegate.setup,kind,name,timestamp,detail")
        let bucketRows = csv.dropFirst().filter { $0.hasPrefix("Transactions per bucket,") }
        #expect(bucketRows.count == 26)
        let counted = bucketRows.flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false).dropFirst(2).compactMap { Int($0) }
        }
        #expect(counted.reduce(0, +) == 34)
    }

    @Test func errorsNameTheProblem() throws {
        let store = ReportTests.appGroup
        for (arguments, message) in [
            (["--width", "20"], "--width takes 40 to 1000 columns"),
            (["--top", "0"], "--top takes 1 to 100 lanes"),
            (["--purge-before", "tx:3", "--strategy", "apple"], "give --purge-before or --strategy, not both"),
            (["--strategy", "nope"], "unknown strategy 'nope'"),
        ] {
            let r = try CLI.run(["timeline", store] + arguments)
            #expect(r.status == 2 && r.stderr.contains(message), "\(arguments): \(r.stderr)")
        }
        let badDate = try CLI.run(["timeline", store, "--before", "soonish"])
        #expect(badDate.status == 2 && badDate.stderr.hasPrefix("cdhist: --before 'soonish': not a date"))
        let missing = try CLI.run(["timeline", "/nonexistent/Tasks.sqlite"])
        #expect(missing.status == 2 && missing.stderr == "cdhist: /nonexistent/Tasks.sqlite: no such file\n")
        let notPlist = try CLI.run(["timeline", store, "--defaults", ReportTests.mergeState + "/corrupt-token.data"])
        #expect(
            notPlist.status == 2
                && notPlist.stderr.hasPrefix(
                    "cdhist: \(ReportTests.mergeState)/corrupt-token.data: not a property list")
        )
    }

    /// `authors` needs the store `--group-container` finds.
    private static func groupStore(_ arguments: [String]) -> [String] {
        guard let i = arguments.firstIndex(of: "--group-container") else { return [] }
        return [arguments[i + 1] + "/Library/Application Support/Tasks.sqlite"]
    }

    /// The axis follows the span: weeks over six weeks, hours over a few hours (one tick each before);
    /// an empty window names the window; the legend shows the glyph each row draws.
    @Test func theAxisFollowsTheSpanAndEmptyWindowsSayWhich() throws {
        let dir = try TemporaryDirectory()
        let copy = dir.file("Tasks.sqlite")
        try FileManager.default.copyItem(atPath: Repository.fixtures + "/MergeState/Tasks.sqlite", toPath: copy)
        let db = try DatabaseQueue(path: copy)
        try db.write { try $0.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = 762685200 + Z_PK * 1.25 * 86400") }
        try db.close()
        func axis(_ args: [String]) throws -> [String] {
            let r = try CLI.run(["timeline"] + args + ["--utc", "--format", "table"], environment: ["COLUMNS": "80"])
            let lines = r.lines
            let rule = try #require(lines.firstIndex { $0.contains("┬") }, "\(r.stdout)")
            return lines[rule + 1].split(separator: " ").map(String.init)
        }
        let weeks = try axis([copy])
        #expect(
            weeks.count >= 5
                && weeks.allSatisfy { $0.range(of: "^[0-9]{2}-[0-9]{2}$", options: .regularExpression) != nil },
            "\(weeks)")
        let hours = try axis([
            Repository.fixtures + "/AppGroup/Tasks.sqlite", "--after", "2025-03-04T08:00:00Z", "--before",
            "2025-03-04T13:00:00Z",
        ])
        #expect(
            hours.count >= 4
                && hours.allSatisfy { $0.range(of: "^[0-9]{2}:[0-9]{2}$", options: .regularExpression) != nil },
            "\(hours)")
        let empty = try CLI.run(
            [
                "timeline", Repository.fixtures + "/AppGroup/Tasks.sqlite", "--after", "2030-01-01", "--before",
                "2030-02-01", "--utc",
                "--format", "table",
            ], environment: ["COLUMNS": "200"])
        #expect(
            empty.stdout
                == "Tasks.sqlite: no transactions between 2030-01-01 00:00:00.000Z and 2030-02-01 00:00:00.000Z\n",
            "\(empty.stdout)")
        let purged = try CLI.run(
            [
                "timeline", Self.purged + "/Tasks.sqlite", "--defaults", Self.purged + "/defaults.plist", "--utc",
                "--format", "table",
            ],
            environment: ["COLUMNS": "80"])
        let row = try #require(purged.lines.last { $0.hasPrefix("app ") }, "\(purged.stdout)")
        #expect(row.contains("◂") && !row.contains("▲"), "\(row)")
        #expect(purged.lines.contains { $0.hasPrefix("◂ app ") }, "\(purged.stdout)")
    }
}
