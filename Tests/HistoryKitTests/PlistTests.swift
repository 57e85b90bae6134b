import Foundation
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct PlistTests {
    @Test func binaryRoundTripKeepsEveryKind() throws {
        let value: PlistValue = .dictionary([
            "s": .string("héllo"), "a": .string("ascii"), "i": .integer(-5), "big": .integer(1 << 40),
            "r": .real(1.5), "b": .bool(true), "f": .bool(false), "d": .date(725_846_400.25),
            "data": .data([0, 1, 2, 255]), "arr": .array([.integer(1), .string("x")]), "u": .uid(300),
            "long": .string(String(repeating: "z", count: 40)),
        ])
        let bytes = PropertyList.encodeBinary(value)
        let (decoded, format) = try PropertyList.decode(bytes)
        #expect(format == .binary)
        #expect(decoded == value)
        #expect(PropertyList.encodeBinary(decoded) == bytes)
    }

    @Test func xmlPlistWithDatesDataAndUIDs() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>when</key><date>2024-01-01T00:00:00Z</date>
            <key>n</key><integer>1</integer><key>yes</key><true/>
            <key>blob</key><data>AAEC/w==</data>
            <key>ref</key><dict><key>CF$UID</key><integer>7</integer></dict>
            <key>list</key><array><string>a</string><real>2.5</real></array>
            </dict></plist>
            """
        let (value, format) = try PropertyList.decode(Array(xml.utf8))
        #expect(format == .xml)
        #expect(value["when"] == .date(725_760_000))
        #expect(value["n"] == .integer(1))
        #expect(value["yes"] == .bool(true))
        #expect(value["blob"] == .data([0, 1, 2, 255]))
        #expect(value["ref"] == .uid(7))
        #expect(value["list"] == .array([.string("a"), .real(2.5)]))
    }

    @Test func damagedInputIsAnErrorNotATrap() throws {
        let good = PropertyList.encodeBinary(.dictionary(["k": .array([.string("v"), .integer(3)])]))
        #expect(throws: PlistError.notAPropertyList) { try PropertyList.decode([1, 2, 3]) }
        #expect(throws: PlistError.self) { try PropertyList.decode(Array("bplist00".utf8)) }
        #expect(throws: PlistError.self) { try PropertyList.decode(Array("<plist><dict><key>a</key></dict>".utf8)) }
        // Every truncation and every single-byte corruption either decodes or throws.
        for n in 0..<good.count {
            _ = try? PropertyList.decode(Array(good.prefix(n)))
        }
        for i in 0..<good.count {
            for v: UInt8 in [0x00, 0x0F, 0x5F, 0xAF, 0xDF, 0xFF] {
                var bad = good
                bad[i] = v
                _ = try? PropertyList.decode(bad)
            }
        }
    }

    @Test func selfReferencingContainerIsRejected() throws {
        // An array (object 0) whose only element is itself.
        var bytes: [UInt8] = Array("bplist00".utf8)
        bytes += [0xA1, 0x00]
        bytes += [0x08]  // offset table: object 0 at 8
        bytes +=
            [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 10]
        #expect(throws: PlistError.self) { try PropertyList.decode(bytes) }
    }

    @Test func rawDeflateRoundTripAndFailures() throws {
        let input = Array(String(repeating: "history ", count: 5000).utf8)
        let packed = RawDeflate.deflate(input)
        #expect(packed.count < input.count / 10)
        #expect(try RawDeflate.inflate(packed, limit: input.count) == input)
        #expect(throws: RawDeflate.Failure.truncated) {
            try RawDeflate.inflate(Array(packed.prefix(packed.count / 2)), limit: 1 << 20)
        }
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate([0xFF, 0xFF, 0xFF, 0xFF], limit: 1 << 20) }
        #expect(throws: RawDeflate.Failure.tooLarge(limit: 100)) { try RawDeflate.inflate(packed, limit: 100) }
    }

    @Test func aModelCacheInflatingPastWhatAModelCanBeIsRefused() throws {
        // 17 MiB of zeros packs into 17 KB: a cache that would cost every command its inflated size.
        let bomb = RawDeflate.deflate([UInt8](repeating: 0, count: 17 << 20))
        #expect(bomb.count < 64 << 10)
        #expect(throws: ModelError.undecodable(source: "Z_MODELCACHE", reason: "inflates to more than 16 MiB")) {
            try ModelLoader.fromModelCache(bomb, source: "Z_MODELCACHE")
        }
    }

    @Test func keyedArchiveHelpersFollowUIDs() throws {
        var b = KeyedArchiveBuilder()
        let list = b.add(array: [b.add(string: "one"), b.add(string: "two")])
        let dict = b.add(dictionary: ["k": b.add(string: "v")])
        let root = b.add(
            ["list": list, "dict": dict, "nothing": KeyedArchiveBuilder.null], classChain: ["Thing", "NSObject"])
        let archive = try KeyedArchive(bytes: BinaryPlistWriter.encode(b.archive(root: root)))
        let top = archive.topObject()
        #expect(archive.classChain(of: top) == ["Thing", "NSObject"])
        #expect(archive.array(archive.value(top, "list"))?.compactMap { archive.string($0) } == ["one", "two"])
        #expect(archive.dictionary(archive.value(top, "dict"))?.map(\.key) == ["k"])
        #expect(archive.value(top, "nothing") == nil)
        #expect(throws: PlistError.self) { try KeyedArchive(bytes: PropertyList.encodeBinary(.array([]))) }
    }

    /// A 128-bit integer (how an archive holds an unsigned 64-bit number): read when it fits
    /// 64 bits signed, refused otherwise (2^64-1 was read as -1, a token "#-1").
    @Test func integersBeyondSixtyFourBitsAreRefusedNotWrapped() throws {
        func plist(high: UInt64, low: UInt64) -> [UInt8] {
            var bytes = Array("bplist00".utf8) + [0x14]
            for v in [high, low] {
                bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
            }
            let offsetTable = UInt64(bytes.count)
            bytes += [8]
            bytes += [0, 0, 0, 0, 0, 0, 1, 1]
            for v in [UInt64(1), 0, offsetTable] {
                bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
            }
            return bytes
        }
        #expect(try PropertyList.decode(plist(high: 0, low: 42)).value == .integer(42))
        #expect(try PropertyList.decode(plist(high: UInt64.max, low: UInt64.max)).value == .integer(-1))
        #expect(throws: PlistError.self) { try PropertyList.decode(plist(high: 0, low: UInt64.max)) }
        #expect(throws: PlistError.self) { try PropertyList.decode(plist(high: 1, low: 0)) }
    }
}
