import HistoryKit

/// What the token target runs on one input.
public enum TokenChecks {
    public static func run(_ bytes: [UInt8]) {
        var tokens: [HistoryToken] = []
        do { tokens.append(try HistoryTokenDecoder.decode(fileBytes: bytes, source: "fuzz.data")) } catch {
            Touch.error(error)
        }
        do { tokens.append(try HistoryTokenDecoder.decode(archive: bytes, source: "fuzz.data")) } catch {
            Touch.error(error)
        }
        _ = HistoryTokenDecoder.isTokenArchive(bytes)
        do { tokens.append(try HistoryTokenDecoder.parseLiteral(String(decoding: bytes, as: UTF8.self))) } catch {
            Touch.error(error)
        }
        // JSON tokens (SwiftData): any bytes, not only those that look like JSON; and a rewrite keeps the rest.
        do { tokens.append(try JSONTokenDecoder.decode(json: bytes, source: "fuzz.json")) } catch { Touch.error(error) }
        if let rewritten = JSONTokenDecoder.rewrite(
            json: bytes, storeUUID: "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87", to: 7)
        {
            guard let again = try? JSONTokenDecoder.decode(json: rewritten, source: "rewritten"),
                again.transactionNumber(forStore: "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87") == 7
            else {
                fatalError("a rewritten JSON token does not read back with the new number")
            }
        }
        for token in tokens {
            Touch.text(token.description)
            _ = token.transactionNumber(forStore: "6F1D2C8A-4B7E-4E0A-9C51-3A2B1D0E9F87")
            // A token cdhist decoded must survive being encoded again (repair-defaults writes them).
            let again = try? HistoryTokenDecoder.decode(
                archive: HistoryTokenDecoder.encode(token), source: "re-encoded")
            guard again == token else {
                fatalError("token \(token) does not survive encoding: \(String(describing: again))")
            }
        }
    }
}
