/// CloudKit's error codes (`CKError.Code`, domain `CKErrorDomain`) as an event of the mirror
/// records them: the name Apple gives each, and what it means for an export.
public enum CloudKitErrorCode {
    /// The domain of CloudKit's errors.
    public static let domain = "CKErrorDomain"

    /// `CKError.Code`'s name of `code` and what it means; nil for a code not in the table.
    public static func describe(_ code: Int64) -> (name: String, meaning: String)? {
        table[code]
    }

    /// "CKErrorDomain 3 (networkUnavailable: the device had no network)"; another domain's error as
    /// it is recorded.
    public static func text(domain: String?, code: Int64?) -> String {
        let recorded = [domain, code.map(String.init)].compactMap { $0 }.joined(separator: " ")
        guard domain == Self.domain, let code, let known = describe(code) else {
            return recorded.isEmpty ? "an unrecorded error" : recorded
        }
        return "\(recorded) (\(known.name): \(known.meaning))"
    }

    private static let table: [Int64: (name: String, meaning: String)] = [
        1: ("internalError", "a failure inside CloudKit"),
        2: ("partialFailure", "some of the records failed"),
        3: ("networkUnavailable", "the device had no network"),
        4: ("networkFailure", "the network failed during the export"),
        5: ("badContainer", "the iCloud container is unknown or not authorized"),
        6: ("serviceUnavailable", "iCloud was unavailable"),
        7: ("requestRateLimited", "iCloud limited the app's requests; it retries later"),
        8: ("missingEntitlement", "the app lacks the iCloud entitlement"),
        9: ("notAuthenticated", "no iCloud account is signed in"),
        10: ("permissionFailure", "the account may not write this data"),
        11: ("unknownItem", "a record does not exist in iCloud"),
        12: ("invalidArguments", "the request was malformed"),
        14: ("serverRecordChanged", "a record changed in iCloud since it was fetched"),
        15: ("serverRejectedRequest", "iCloud rejected the request"),
        16: ("assetFileNotFound", "an asset's file was missing"),
        17: ("assetFileModified", "an asset's file changed while it was saved"),
        18: ("incompatibleVersion", "the app's version is too old for the container"),
        19: ("constraintViolation", "a unique field's value is taken"),
        20: ("operationCancelled", "the export was cancelled"),
        21: ("changeTokenExpired", "the server change token expired"),
        22: ("batchRequestFailed", "the whole batch failed"),
        23: ("zoneBusy", "the zone was busy; it retries later"),
        24: ("badDatabase", "the database cannot take this operation"),
        25: ("quotaExceeded", "the user's iCloud storage is full"),
        26: ("zoneNotFound", "the record zone does not exist"),
        27: ("limitExceeded", "the request was too large"),
        28: ("userDeletedZone", "the user deleted the zone in Settings"),
        29: ("tooManyParticipants", "a share has too many participants"),
        30: ("alreadyShared", "the record is already shared"),
        31: ("referenceViolation", "a referenced record does not exist"),
        32: ("managedAccountRestricted", "the managed account is restricted"),
        33: ("participantMayNeedVerification", "a participant needs to verify"),
        34: ("serverResponseLost", "the server's response was lost"),
        35: ("assetNotAvailable", "an asset is not available"),
        36: ("accountTemporarilyUnavailable", "the iCloud account is not ready yet"),
    ]
}
