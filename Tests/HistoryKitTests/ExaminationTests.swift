import Foundation
import HistoryKit
import TestSupport
import Testing

/// Hashes before and after: what changes between them is named; what does not is proven equal.
@Suite struct ExaminationTests {
    @Test func aFileWrittenWhileReadIsNamedAndOneThatAppearsToo() throws {
        let dir = try TemporaryDirectory()
        try Data("store".utf8).write(to: URL(fileURLWithPath: dir.file("a.sqlite")))
        try Data("wal".utf8).write(to: URL(fileURLWithPath: dir.file("a.sqlite-wal")))
        // A token file that is not there is not an input.
        var exam = try Examination.begin(
            EvidenceInput.store(dir.file("a.sqlite")) + EvidenceInput.other(.token, dir.file("token.data")))
        // The companions are listed whether or not they are there (one that appears is a change).
        #expect(exam.files.map(\.input.role) == [.store, .wal, .shm, .journal])
        #expect(exam.files.map(\.wasPresent) == [true, true, false, false])
        try exam.finish()
        #expect(exam.unchanged)
        try exam.verify()

        var written = try Examination.begin(EvidenceInput.store(dir.file("a.sqlite")))
        try Data("wal, more".utf8).write(to: URL(fileURLWithPath: dir.file("a.sqlite-wal")))
        try written.finish()
        #expect(!written.unchanged)
        #expect(
            throws: EvidenceError.changedWhileReading(
                path: dir.file("a.sqlite-wal"), before: written.files[1].before?.sha256,
                after: written.files[1].after?.sha256)
        ) { try written.verify() }

        var appearing = try Examination.begin(EvidenceInput.store(dir.file("a.sqlite")))
        try Data("shm".utf8).write(to: URL(fileURLWithPath: dir.file("a.sqlite-shm")))
        try appearing.finish()
        #expect(
            throws: EvidenceError.changedWhileReading(
                path: dir.file("a.sqlite-shm"), before: nil, after: appearing.files[2].after?.sha256)
        ) {
            try appearing.verify()
        }
        #expect(EvidenceError.changedWhileReading(path: "x", before: nil, after: "y").description.contains("appeared"))
    }

    @Test func theDigestIsSHA256OfTheBytes() throws {
        let dir = try TemporaryDirectory()
        // Known answers: the empty file, "abc", and a million 'a's (FIPS 180-2's test vectors).
        let vectors: [(Data, String)] = [
            (Data(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Data("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                Data(repeating: UInt8(ascii: "a"), count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
        ]
        for (k, (bytes, hex)) in vectors.enumerated() {
            try bytes.write(to: URL(fileURLWithPath: dir.file("\(k)")))
            let digest = try #require(try FileDigest.take(dir.file("\(k)")))
            #expect(digest.sha256 == hex)
            #expect(digest.size == Int64(bytes.count))
        }
        #expect(try FileDigest.take(dir.file("missing")) == nil)
        #expect(throws: EvidenceError.self) { try FileDigest.take(dir.path) }
    }
}
