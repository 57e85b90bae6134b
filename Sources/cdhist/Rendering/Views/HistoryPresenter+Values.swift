import HistoryKit

/// Property values (an object's row, read through the model) as JSON and as text: for `object`'s
/// current values, and for the values before and after a change (`--values`).
extension HistoryPresenter {
    /// Blobs longer than this are summarized: in tables by their first bytes, in JSON by more of them.
    static let tableBlobLimit = 8
    static let jsonBlobLimit = 32
    /// Strings longer than this are cut in tables (JSON keeps them whole).
    static let tableTextLimit = TextCut.limit

    /// Whether `content` is cut in a table (``text(_:whole:reference:)`` without `whole`).
    static func isCut(_ content: PropertyValue.Content) -> Bool {
        let value: StoredValue?
        let type: AttributeType?
        switch content {
        case .attribute(let t, let v): (value, type) = (v, t)
        case .column(let v): (value, type) = (v, nil)
        default: return false
        }
        switch value {
        case .text(let s)?: return s.count > tableTextLimit
        case .blob(let b)?: return b.count > tableBlobLimit && !(type == .uuid && b.count == 16)
        default: return false
        }
    }

    /// `properties` as a JSON object keyed by name; objects named by their URIs in the store `storeUUID`.
    /// Blobs past `blobLimit` bytes are summarized; nil gives every byte (what `recover` brings back).
    func writeProperties<S: JSONSink>(
        _ properties: [PropertyValue], storeUUID: String, blobLimit: Int? = jsonBlobLimit, to s: inout S
    ) {
        s.beginObject()
        for property in properties {
            s.key(named: property.name)
            switch property.content {
            case .attribute(let type, let value):
                if let value { write(value, type: type, blobLimit: blobLimit, to: &s) } else { s.null() }
            case .column(let value):
                if let value { write(value, type: nil, blobLimit: blobLimit, to: &s) } else { s.null() }
            case .toOne(let target):
                s.string(target?.uri(storeUUID: storeUUID))
            case .toMany(let count, let first):
                s.beginObject()
                s.member("count", count)
                s.key("first")
                s.beginArray()
                for object in first { s.string(object.uri(storeUUID: storeUUID)) }
                s.endArray()
                s.endObject()
            case .unread(let why):
                s.beginObject()
                s.member("unread", why)
                s.endObject()
            }
        }
        s.endObject()
    }

    /// A property's value as a table shows it; `reference` names an object. With `whole`, long
    /// strings and blobs are not cut.
    func text(
        _ content: PropertyValue.Content, whole: Bool = false,
        reference: (ObjectReference) -> String = { $0.description }
    )
        -> (text: String, style: Style?)
    {
        let textLimit = whole ? nil : Self.tableTextLimit
        let blobLimit = whole ? nil : Self.tableBlobLimit
        switch content {
        case .attribute(let type, let value):
            return value.map { (text($0, type: type, textLimit: textLimit, blobLimit: blobLimit), nil) } ?? (
                "nil", .dim
            )
        case .column(let value):
            return value.map { (text($0, type: nil, textLimit: textLimit, blobLimit: blobLimit), nil) } ?? ("nil", .dim)
        case .toOne(let target):
            return target.map { (reference($0), nil) } ?? ("nil", .dim)
        case .toMany(let count, let first):
            guard count > 0 else { return ("none", .dim) }
            let more = count > first.count ? ", … and \(count - first.count) more" : ""
            return ("\(plural(count, "object")): " + first.map(reference).joined(separator: ", ") + more, nil)
        case .unread(let why):
            return ("not read: \(why)", .dim)
        }
    }

    /// The values before and after a change as JSON members (`valuesBefore`, `valuesAfter`);
    /// null on a side without a row, and both null outside the saves of the -wal. Then where they
    /// were read: `valuesSave` (before: the store after the save before it; after: after it),
    /// `valuesExact` (both states exact), and `valuesNote`: why a state is partial, or why the
    /// files hold no values (null when exact).
    func writeValues<S: JSONSink>(_ notes: ChangeNotes, storeUUID: String, to s: inout S) {
        let values = notes.values
        writeSide(values?.before, key: "valuesBefore", storeUUID: storeUUID, to: &s)
        writeSide(values?.after, key: "valuesAfter", storeUUID: storeUUID, to: &s)
        s.member("valuesSave", values?.save)
        s.key("valuesExact")
        if let values { s.bool(values.exact) } else { s.null() }
        s.member("valuesNote", notes.valuesNote)
    }

    /// The save the values were read at, for people: `save 3`, or `save 3 (partial …)` when a
    /// state it was read from is partial (JSON and CSV give why; so does `cdhist saves`).
    static func valueSource(_ values: SaveValues.Values) -> String {
        "save \(values.save)" + (values.exact ? "" : " (partial: a value may be a later save's; cdhist saves says why)")
    }

    private func writeSide<S: JSONSink>(_ side: [PropertyValue]?, key: String, storeUUID: String, to s: inout S) {
        s.key(named: key)
        if let side { writeProperties(side, storeUUID: storeUUID, to: &s) } else { s.null() }
    }

    /// The values before and after a change, one line per property: `name: old → new`.
    func valueLines(_ values: SaveValues.Values) -> [String] {
        let names = (values.after ?? values.before ?? []).map(\.name)
        return names.map { name in
            func side(_ properties: [PropertyValue]?) -> String? {
                properties.map { list in list.first { $0.name == name }.map { text($0.content).text } ?? "-" }
            }
            switch (side(values.before), side(values.after)) {
            case (let old?, let new?): return "\(name): \(old) → \(new)"
            case (nil, let new?): return "\(name): \(new)"
            case (let old?, nil): return "\(name): \(old)"
            default: return name
            }
        }
    }
}
