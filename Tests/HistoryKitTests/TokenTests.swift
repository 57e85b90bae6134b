import Foundation
import TestSupport
import Testing

@testable import HistoryKit

@Suite struct TokenTests {
    @Test func encodedTokenDecodes() throws {
        let token = HistoryToken(transactionNumbers: ["AAAA": 3, "BBBB": 9])
        let bytes = HistoryTokenDecoder.encode(token)
        #expect(try HistoryTokenDecoder.decode(archive: bytes, source: "t") == token)
        #expect(HistoryTokenDecoder.isTokenArchive(bytes))
        let wrapped = PropertyList.encodeBinary(.dictionary(["other": .string("x"), "lastToken": .data(bytes)]))
        #expect(try HistoryTokenDecoder.decode(fileBytes: wrapped, source: "p") == token)
        #expect(token.transactionNumber(forStore: "aaaa") == 3)
    }

    @Test func badTokensAreNamedPlainly() throws {
        #expect(throws: TokenError.corruptArchive(source: "f", reason: "not a property list (neither binary nor XML)"))
        {
            try HistoryTokenDecoder.decode(archive: [1, 2, 3], source: "f")
        }
        let model = BinaryPlistWriter.encode(ModelArchiveEncoder.archive(LibraryModel.model))
        #expect(throws: TokenError.wrongClass(source: "m", className: "NSManagedObjectModel")) {
            try HistoryTokenDecoder.decode(archive: model, source: "m")
        }
        #expect(
            try HistoryTokenDecoder.parseLiteral("FE941CCE-3AF4-4243-907C-C2233C09008D:516")
                == HistoryToken(storeUUID: "FE941CCE-3AF4-4243-907C-C2233C09008D", transactionNumber: 516))
        #expect(throws: TokenError.badLiteral("nope:1")) { try HistoryTokenDecoder.parseLiteral("nope:1") }
    }
}
