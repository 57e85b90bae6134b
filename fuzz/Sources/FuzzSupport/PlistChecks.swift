import HistoryKit

/// What the plist target runs on one input.
public enum PlistChecks {
    public static func run(_ bytes: [UInt8]) {
        if let (value, format) = try? PropertyList.decode(bytes) {
            roundTrip(value, format: format)
            if let archive = try? KeyedArchive(plist: value) { walk(archive) }
        }
        // The merge-state reader, for the store UUIDs of the fixtures and of no store.
        for uuid in [nil, "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87"] as [String?] {
            do {
                let state = try DefaultsReader.read(
                    bytes: bytes, path: "fuzz.plist", storeUUID: uuid, customPrefixes: ["lastMerge."])
                for record in state.records { Touch.record(record) }
            } catch {
                Touch.error(error)
            }
        }
    }

    /// A decoded value must survive being written again in its own format
    /// (repair-defaults rewrites plists so) and, from binary, in binary.
    static func roundTrip(_ value: PlistValue, format: PropertyList.Format) {
        let encoded = PropertyList.encodeBinary(value)
        guard let (again, againFormat) = try? PropertyList.decode(encoded), againFormat == .binary else {
            fatalError("a decoded plist written as binary does not decode: \(value)")
        }
        guard Same.plist(again, value) else {
            fatalError("binary round trip changed the value:\n\(value)\n\(again)")
        }
        let xml: [UInt8]
        do {
            xml = try PropertyList.encodeXML(value)
        } catch {
            Touch.error(error)  // a date an XML plist cannot hold: refused, not trapped
            return
        }
        guard format == .xml else { return }
        guard let (fromXML, _) = try? PropertyList.decode(xml) else {
            fatalError(
                "an XML plist written again as XML does not decode: \(value)\n\(String(decoding: xml, as: UTF8.self))")
        }
        guard Same.plist(fromXML, value) else {
            fatalError("XML round trip changed the value:\n\(value)\n\(fromXML)")
        }
    }

    /// Every helper a token or model decoder uses on an archive.
    static func walk(_ archive: KeyedArchive) {
        _ = archive.topObject()
        for object in archive.objects.prefix(2000) {
            _ = archive.classChain(of: object)
            _ = archive.string(object)
            _ = archive.array(object)
            _ = archive.dictionary(object)
            if case .dictionary(let d) = object {
                for key in d.keys.prefix(20) { _ = archive.value(object, key) }
            }
        }
    }
}

/// Comparison that treats NaN as equal to NaN (a plist may hold one).
public enum Same {
    public static func plist(_ a: PlistValue, _ b: PlistValue) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)), (.date(let x), .date(let y)):
            return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { plist($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { plist(value, $0) } ?? false }
        default:
            return a == b
        }
    }
}

/// Uses a value the way cdhist renders it, so descriptions are exercised too.
public enum Touch {
    nonisolated(unsafe) public static var sink = 0

    public static func error(_ error: Error) {
        sink &+= "\(error)".utf8.count
    }

    public static func text(_ s: String?) {
        sink &+= s?.utf8.count ?? 0
    }

    public static func record(_ record: MergeRecord) {
        text(record.actor)
        text(record.source)
        text(record.keyFormat?.description)
        switch record.position {
        case .date(let d, _): sink &+= d.isFinite ? 1 : 0
        case .token(let t): text(t.description)
        case .unreadable(let why): text(why)
        }
    }
}
