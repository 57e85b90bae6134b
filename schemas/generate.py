#!/usr/bin/env python3
"""Writes schemas/cdhist.schema.json: the JSON contract of cdhist (format cdhist/1).

Every object lists all its properties and forbids others, so a field added to
the output without a schema change fails the validation tests.
VERSION rises with every change: the minor number when fields or documents are
added (format stays cdhist/1), the major number (with format) for a change that
breaks a consumer.
Run: python3 schemas/generate.py
"""
import json, os

# 1.0: the documents of format cdhist/1.
# 1.1: CloudKit's exporter as an actor (actors[].kind, ownTransactionsAfterPosition,
#      mirroredRecords; cleaners[].breaks; consequences[].kind), the cloudkit document,
#      and writers (authors without a merge position) apart from actors (actors' writers).
# 1.2: the object and diff documents, watch's event lines (purged, checkpoint), and a change's
#      label (with --labels).
# 1.3: a purge preview's cut-off (cutoff, cutoffTransaction); info's purgeTraces.migrationAtCut.
# 1.4: what a stopped purge left, in a purge's result (earlierPurgeStopped, unfinishedBackups).
# 1.5: the cleaners phtk-1.0.0-manual, phtk-2-manual, fatbobman-demo and studapp; each cleaner's source and
#      notes; a purge preview's ruleNotes; transactionsToDeleteAtMost (a cut-off from a whole-second date).
# 1.6: the stores document (stores found under places, and the problems met on the way).
# 1.7: info's evidence (with --hash), the deleted document and its lines, Timesketch's event lines (export --format timesketch).
# 1.8: an actor's pendingCountAtMost (a position kept in whole seconds: what may be pending too).
# 1.9: the saves document (the commits still in the -wal, and what each changed); a change's valuesBefore and
#      valuesAfter (with --values); saves --slots' slotCheck; the recovered document.
# 1.10: a recovered transaction's and object's exact and why; saves --format ndjson: a line per save; an
#       actor's ownTransactionsAfterOthers and fix (the command that resets a broken actor); a defaults
#       repair's skippedTransactions.
# 1.11: the token document's tokens (every token a file holds, each with its key and check); the timeline's
#       by and each lane's value (lanes by bundle ID, process or context name); a Timesketch event's filename;
#       the members of an archive in an examination's files; info's files.packedShm.
# 1.12: the provoke and provoke-undo documents (a store put into a failure an app must survive, and put back).
# 1.13: the cleaners apple-604800 (Apple's earlier listing; apple now counts calendar days) and swiftsync
#       (its author's history at every date); a cleaner's allDates (no cut-off date: what its authorFilter selects);
#       hiddenReaders of actors and purge previews (the Spotlight delegate); watch's mass-delete event; the
#       check rules cascade-orphans, mass-delete, two-mirrors, dormant-mirror and spotlight-reader.
# 1.14: every document's atSave (read at a save of the -wal) and warnings (a damaged -wal), and NDJSON's first
#       line of kind atSave; a change's valuesSave, valuesExact and valuesNote (with --values), and a Timesketch
#       event's atSave; the saves document's wal.bytes and slotCheck's partialSaveUpdates, byTrigger and
#       triggerProperties; provoke-undo's discarded (what an undo with --force threw away); the recovered
#       document's unreadable (saves whose earlier, partial state SQLite cannot read).
# 1.15: the token document's status is the status actors gives the same position (up-to-date or behind where
#       it said valid; corrupt-token for a damaged one, listed with its problem), with the advice and the actor actors names it; every token a
#       plist holds is listed, damaged ones included, and otherStoreKeys names the keys of other stores' positions.
#       A partial save's transactionNumbers, transactionsRemoved, changesAdded, changesRemoved, entities and
#       otherTables are null: its changes are not known. The actors document's lagClock, lagTo, newestTransaction and
#       newestTimestamp (lags are measured by the store's own time unless --now is given or the store is live), and an
#       actor's positionAgeSeconds (how long before that time its position lies). A source's and the token
#       document's inferredKeyPrefix (keys historyToken.<actor>: the prefix before authors' names, found without
#       --key-prefix). A recovered object's deletedAt (its delete's time), and its values whole (every byte of data).
# 1.16: the deleted document's entities (per entity: objects deleted, how many of those deletes kept tombstone
#       values, objects gone without a recorded delete, the first and last deleting transaction), given in full
#       when --limit lists fewer objects. A provocation's hiddenReaders (readers no file shows that its purge may
#       break, as purge names them).
# 1.17: the members an MCP tool's result adds to a command's document (cdhist mcp): page (which rows of the
#       document's longest list a page holds, their total, and the cursor of the next page) and previewID (a
#       preview's identifier, with --allow-writes), and cutStrings (how many long strings were cut, as tables
#       cut them, for an answer or a page's one row to fit). provoke-undo's executed (false: provoke --undo
#       --preview, what it would put back and what was written since).
VERSION = "1.17"

def nullable(t): return {"type": [t, "null"]} if isinstance(t, str) else {"anyOf": [t, {"type": "null"}]}
S, I, N, B = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}
TS = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"}
def arr(items): return {"type": "array", "items": items}
def obj(props, optional=()):
    return {"type": "object", "additionalProperties": False, "properties": props,
            "required": [k for k in props if k not in optional]}
def ref(name): return {"$ref": f"#/$defs/{name}"}
def doc(kind, props, optional=()):
    # Every document: atSave when read at a save, warnings when the store read is not all its files hold;
    # as an MCP tool's result, page when it is a page of a longer answer, previewID when it is a write's preview,
    # cutStrings when strings were cut for it to fit.
    p = {"format": {"const": "cdhist/1"}, "kind": {"const": kind}, "atSave": ref("atSave"), "warnings": arr(S),
         "page": ref("page"), "previewID": S, "cutStrings": {"type": "integer", "minimum": 1}}
    p.update(props)
    return obj(p, tuple(optional) + ("atSave", "warnings", "page", "previewID", "cutStrings"))

defs = {}
defs["atSave"] = obj({"save": I, "of": I, "newestTransaction": nullable("integer"), "exact": B, "why": nullable("string")})
defs["token"] = {"type": "object", "additionalProperties": I, "minProperties": 1}
defs["page"] = obj({"list": S, "offset": I, "count": I, "total": I, "nextCursor": nullable("string")})
defs["transaction"] = obj({
    "transactionNumber": I, "timestamp": nullable(TS), "cocoaTimestamp": nullable("number"),
    "author": nullable("string"), "contextName": nullable("string"), "bundleID": nullable("string"),
    "processID": nullable("string"), "storeID": S, "token": ref("token"), "changeCount": I,
    "queryGenerationLength": nullable("integer"), "warnings": arr(ref("warning")), "changes": arr(ref("change")),
}, optional=("warnings", "changes"))
defs["warning"] = obj({"kind": {"enum": ["unknownEntity", "entityNotInModel", "noModel", "columnsLengthMismatch",
    "bitPastLastSlot", "missingColumns", "unnamedTombstone", "tombstoneColumnsMissing", "unknownChangeType", "layoutUncertain",
    "wrongType", "timestampOutOfRange"]},
    "message": S, "rawHex": nullable("string")})
defs["change"] = obj({
    "changeID": I, "transactionNumber": I, "changeType": {"type": "string", "pattern": r"^(insert|update|delete|unknown\(-?\d+\))$"},
    "entity": nullable("string"), "entityNumber": I, "entityPK": I, "changedObjectID": nullable("string"),
    "updatedProperties": nullable(arr(S)), "updatedSlots": nullable(arr(I)),
    "tombstone": nullable({"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}),
    "label": nullable("string"), "valuesBefore": nullable({"type": "object"}), "valuesAfter": nullable({"type": "object"}),
    "valuesSave": nullable("integer"), "valuesExact": nullable("boolean"), "valuesNote": nullable("string"),
    "warnings": arr(ref("warning")),
}, optional=("label", "valuesBefore", "valuesAfter", "valuesSave", "valuesExact", "valuesNote", "warnings"))
line = lambda base: {**base, "properties": {"format": {"const": "cdhist/1"}, **base["properties"]},
                     "required": ["format"] + base["required"]}
defs["transactionLine"] = line(defs["transaction"])
defs["changeLine"] = line(defs["change"])
defs["info"] = doc("info", {
    "store": S, "storeID": S, "storeType": nullable("string"), "frameworkVersion": nullable("string"),
    "modelVersionIdentifiers": arr(S),
    "model": obj({"source": nullable("string"), "entityCount": nullable("integer"), "problem": nullable("string")}),
    "entityCount": I,
    # packedShm: the -shm a backup or an archive holds beside a store inside it (not read).
    "files": obj({"main": I, "wal": nullable("integer"), "shm": nullable("integer"), "packedShm": nullable("integer"), "total": I}),
    "space": obj({"method": {"enum": ["dbstat", "estimate"]}, "pageSize": I, "pageCount": I, "freelistCount": I,
                  "historyBytes": I, "historyShare": N, "tables": arr(obj({"name": S, "pages": I, "bytes": I}))}),
    "transactionCount": I, "changeCount": I, "insertCount": nullable("integer"), "updateCount": nullable("integer"), "deleteCount": nullable("integer"),
    "otherTypeCount": nullable("integer"), "orphanChangeCount": I, "unreadableTimestampCount": I, "stringCount": I,
    "firstTransactionNumber": nullable("integer"), "lastTransactionNumber": nullable("integer"),
    "firstTimestamp": nullable(TS), "lastTimestamp": nullable(TS),
    "firstCocoaTimestamp": nullable("number"), "lastCocoaTimestamp": nullable("number"),
    "purgeTraces": obj({"startsAfterFirst": B, "transactionHighWaterMark": nullable("integer"),
                        "highWaterMarkAboveLast": B, "transactionGaps": I,
                        # The migration author of the first remaining transaction, when history starts after #1.
                        "migrationAtCut": nullable("string")}),
    "notices": arr(S),
    # With --hash: each input's SHA-256 before and after reading.
    "evidence": ref("evidence"),
}, optional=("evidence",))
digest = nullable(obj({"size": I, "modified": nullable(TS), "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}))
evidence_role = {"enum": ["store", "wal", "shm", "journal", "defaults", "token", "model", "config", "backup manifest", "archive"]}
defs["evidence"] = obj({"examined": TS, "ended": nullable(TS), "version": S, "commit": nullable("string"), "sqliteVersion": S,
    "access": nullable("string"), "unchanged": B,
    # members: for an archive, the files read from it (path in the archive), hashed when reading began.
    "files": arr(obj({"role": evidence_role, "path": S, "before": digest, "after": digest, "unchanged": B,
                      "members": arr(obj({"role": evidence_role, "path": S, "size": I, "sha256": S}))}))})
defs["transactions"] = doc("transactions", {"storeID": S, "transactions": arr(ref("transaction"))})
defs["changes"] = doc("changes", {"storeID": S, "changes": arr(ref("change"))})
defs["show"] = doc("transaction", {"transaction": ref("transaction")})
defs["entities"] = doc("entities", {"entities": arr(obj({
    "entity": S, "entityNumber": I, "superentity": nullable("string"), "rootTable": nullable("string"), "maxPK": I,
    "inserts": I, "updates": I, "deletes": I,
    "slots": nullable(arr(obj({"slot": I, "property": S, "role": {"enum": ["toOneForeignKey", "toOneEntityColumn",
        "toOneOrderColumn", "attribute", "toManyInverseToOne", "manyToMany"]}}))),
    "columnsBytes": nullable("integer"), "tombstoneAttributes": nullable(arr(S)), "notes": arr(S)}))})
summary = arr(obj({"value": nullable("string"), "transactionCount": I, "changeCount": I, "firstTimestamp": nullable(TS),
                   "lastTimestamp": nullable(TS), "firstTransactionNumber": I, "lastTransactionNumber": I}))
defs["authors"] = doc("authors", {"authors": summary, "contextNames": summary, "bundleIDs": summary, "processIDs": summary},
                      optional=("authors", "contextNames", "bundleIDs", "processIDs"))
status = {"enum": ["up-to-date", "behind", "never-merged", "expired", "missed-changes", "foreign-token", "corrupt-token",
                   "unknown-actor", "writes-only"]}
position = obj({"source": S, "keyFormat": nullable("string"), "type": {"enum": ["date", "token", "unreadable"]},
                "date": nullable(TS), "cocoaDate": N, "wholeSeconds": B, "token": ref("token"), "problem": S},
               optional=("date", "cocoaDate", "wholeSeconds", "token", "problem"))
kind = {"enum": ["app", "cloudkit"]}
defs["consequence"] = obj({"actor": S, "kind": kind, "status": status, "message": S})
defs["actor"] = obj({"actor": S, "kind": kind, "status": status, "declared": B, "batch": B, "authoredTransactions": I,
    "positions": arr(position), "lastMergedTransaction": nullable("integer"), "lastMergedTimestamp": nullable(TS),
    "tokenTransactionNumber": nullable("integer"), "pendingCount": I, "pendingCountAtMost": I, "ownTransactionsAfterPosition": I, "ownTransactionsAfterOthers": I,
    "mirroredRecords": nullable("integer"),
    "pendingByAuthor": arr(obj({"author": nullable("string"), "count": I})),
    "oldestPendingTransaction": nullable("integer"), "oldestPendingTimestamp": nullable(TS),
    "lagSeconds": nullable("number"), "positionAgeSeconds": nullable("number"), "explanation": S, "advice": S, "fix": nullable("string")},
    optional=("pendingCountAtMost",))
# A reader of history whose position no file shows (the Spotlight delegate), and what shows it is there.
defs["hiddenReader"] = obj({"kind": {"enum": ["spotlight"]}, "name": S, "evidence": arr(S), "explanation": S, "purgeEffect": S})
defs["actors"] = doc("actors", {
    "storeID": S, "now": nullable(TS), "cocoaNow": N,
    # What lags are measured to: the store's newest transaction (a copy is judged by its own time), --now, or the
    # wall clock while another process has the store open.
    "lagClock": {"enum": ["newest-transaction", "given", "wall-clock"]}, "lagTo": nullable(TS),
    "newestTransaction": nullable("integer"), "newestTimestamp": nullable(TS),
    "sources": arr(obj({"path": S, "kind": S, "positions": I, "ignoredKeys": I, "otherStoreKeys": arr(S), "inferredKeyPrefix": nullable("string")})),
    "actors": arr(ref("actor")),
    "hiddenReaders": arr(ref("hiddenReader")),
    "writers": arr(obj({"author": nullable("string"), "family": nullable({"enum": ["coredata-migration", "cloudkit", "apple"]}),
        "transactions": I, "firstTransaction": I, "lastTransaction": I, "firstTimestamp": nullable(TS), "lastTimestamp": nullable(TS)})),
    "cleaners": arr(obj({"strategy": {"enum": ["apple", "apple-604800", "phtk-1.0.0", "phtk-1.0.0-manual", "phtk-1.0.4", "phtk-2", "phtk-2-manual",
                                               "fatbobman", "fatbobman-demo", "swiftlee", "studapp", "appwise", "swiftsync"]},
        "title": S, "source": S, "cutoff": nullable(TS), "cocoaCutoff": nullable("number"), "allDates": B, "reason": S, "heldBackBy": nullable("string"),
        "authorFilter": nullable(arr(S)), "resetsKeysAfterPurge": B, "notes": arr(S), "transactionsToDelete": nullable("integer"),
        "transactionsToDeleteAtMost": nullable("integer"),
        "breaks": arr(ref("consequence"))})),
})
defs["token"] = defs["token"]
# A token as `actors` judges the same position: its status, explanation (message) and advice; a damaged
# one has no token but its problem.
token_check = {"token": nullable(ref("token")), "problem": S, "store": S, "storeID": S,
    "status": {"enum": ["up-to-date", "behind", "expired", "foreign-token", "corrupt-token"]}, "message": S, "advice": S,
    "transactionNumber": nullable("integer"), "transaction": nullable(ref("transaction"))}
token_check_optional = ("problem", "store", "storeID", "status", "message", "advice", "transactionNumber", "transaction")
# The top-level members describe the file's token when it holds one; `tokens` lists every token
# it holds (a plist of several: each under its key).
defs["tokenCheck"] = doc("token", dict({"source": S, "otherStoreKeys": arr(S), "inferredKeyPrefix": nullable("string"), "tokens": arr(obj(dict({"key": nullable("string"), "actor": S}, **token_check),
                                                                       optional=token_check_optional))}, **token_check),
    optional=("token",) + token_check_optional)
defs["purgePreview"] = doc("purge-preview", {
    "store": S, "rule": S, "ruleNotes": arr(S),
    # Where the bound cuts: its date, and the transaction it falls before (for a date the first at or
    # after it; for tx:N, N, with the timestamp of the first transaction from N on). Null: none.
    "cutoff": nullable(TS), "cutoffTransaction": nullable("integer"),
    "transactionCount": I, "changeCount": I,
    "firstTransactionNumber": nullable("integer"), "lastTransactionNumber": nullable("integer"),
    "firstTimestamp": nullable(TS), "lastTimestamp": nullable(TS),
    "survivingTransactionCount": I, "survivingChangeCount": I, "oldestSurvivingTransaction": nullable("integer"),
    "reclaimableBytes": I, "stringsBecomingUnused": arr(S), "stringsAlreadyUnused": I, "cloudKitTransactions": I,
    # changes per author and byEntity are counted only with --breakdown (null otherwise).
    "byAuthor": arr(obj({"author": nullable("string"), "transactions": I, "changes": nullable("integer")})),
    "byEntity": nullable(arr(obj({"entity": nullable("string"), "entityNumber": nullable("integer"), "inserts": I, "updates": I, "deletes": I}))),
    "consequences": arr(ref("consequence")),
    "hiddenReaders": arr(ref("hiddenReader")),
    "executed": {"const": False},
})
defs["purgeResult"] = doc("purge-result", {"store": S, "executed": {"const": True}, "backup": nullable("string"), "deletedTransactions": I,
    "deletedChanges": I, "prunedStrings": I, "vacuumed": B, "bytesBefore": I, "bytesAfter": I, "integrityCheck": {"const": "ok"},
    "earlierPurgeStopped": B, "unfinishedBackups": arr(S)})
value = {"anyOf": [obj({"date": nullable(TS), "cocoaDate": N}), obj({"token": ref("token")}), obj({"bytes": I}), S, {"type": "null"}]}
defs["repairDefaults"] = doc("repair-defaults", {"plist": S, "plistFormat": {"enum": ["binary", "xml"]}, "actor": S,
    "changes": arr(obj({"key": S, "old": value, "new": value})), "skippedTransactions": I, "executed": B, "backup": S}, optional=("backup",))
position = {"anyOf": [obj({"type": {"const": "date"}, "date": nullable(TS), "cocoaDate": N}), obj({"type": {"const": "token"}, "token": ref("token")}),
                       obj({"type": {"const": "unreadable"}, "problem": S})]}
scenario = {"enum": ["expired-token", "missed-changes", "behind", "foreign-token", "corrupt-token", "cloudkit-reset"]}
defs["provoke"] = doc("provoke", {"scenario": scenario, "store": S, "actor": S, "executed": B, "summary": S,
    "position": obj({"file": S, "old": position, "new": position}),
    "files": arr(obj({"path": S, "existed": B, "backup": nullable("string"), "sha256": nullable("string")})),
    "transactionsDeleted": I, "alsoBreaks": arr(obj({"actor": S, "status": status})), "hiddenReaders": arr(ref("hiddenReader")),
    "deletedRange": nullable(obj({"first": I, "last": I})),
    "expectedAtLaunch": obj({"code": nullable("integer"), "name": nullable("string"), "behaviour": S}),
    "checkRule": nullable("string")}, optional=("position",))
defs["provokeUndo"] = doc("provoke-undo", {"store": S, "executed": B,
    "files": arr(obj({"path": S, "action": {"enum": ["restored", "removed"]}, "sha256": nullable("string")})), "unfinished": B,
    "discarded": nullable(obj({"transactions": arr(I), "transactionCount": I, "files": arr(S)}))})
defs["check"] = doc("check", {"store": S, "storeID": S, "failOn": {"enum": ["error", "warning", "info"]},
    "findings": arr(obj({"rule": S, "severity": {"enum": ["error", "warning", "info"]}, "message": S, "data": {"type": "object"}})),
    "counts": obj({"info": I, "warning": I, "error": I}), "failed": B})

counts = {"needsUpload": nullable("integer"), "needsCloudDelete": nullable("integer")}
defs["cloudkit"] = doc("cloudkit", {
    "store": S, "storeID": S, "mirrored": B, "tables": arr(S), "metadataSource": nullable("string"),
    "exporter": nullable(ref("actor")), "transactionsAfterPosition": nullable("integer"), "changesAfterPosition": nullable("integer"),
    "records": nullable(obj({"mirrored": I, **counts, "needsLocalDelete": nullable("integer"), "exportInFlight": nullable("integer"),
        "lastExportedTransaction": nullable("integer"),
        "byEntity": arr(obj({"entity": nullable("string"), "entityNumber": nullable("integer"), "mirrored": I, **counts,
                             "changedSinceExport": nullable("integer")}))})),
    "changedSinceExport": nullable(obj({"count": I, "objects": arr(obj({"entity": nullable("string"), "entityNumber": I, "entityPK": I,
        "changedObjectID": nullable("string"), "lastExportedTransaction": nullable("integer"), "lastChangedTransaction": I}))})),
    "databases": nullable(arr(obj({"scope": S, "lastFetch": nullable(TS), "cocoaLastFetch": nullable("number")}))),
    "zones": nullable(arr(obj({"name": nullable("string"), "owner": nullable("string"), "lastFetch": nullable(TS),
                               "cocoaLastFetch": nullable("number")}))),
    "eventCount": nullable("integer"),
    "recentEvents": nullable(arr(obj({"type": S, "started": nullable(TS), "ended": nullable(TS), "succeeded": nullable("boolean"),
                                      "errorDomain": nullable("string"), "errorCode": nullable("integer")}))),
    "metadata": arr(obj({"key": S, "value": {"type": ["string", "integer", "boolean", "object", "null"]}})),
    "problems": arr(S),
})

# value: the lane's author, bundle ID, process or context name (as `by` says); author: its author when by author.
lane = obj({"author": nullable("string"), "value": nullable("string"), "transactionCount": I, "counts": arr(I)})
defs["timeline"] = doc("timeline", {"store": S, "storeID": S, "by": {"enum": ["author", "contextName", "bundleID", "processID"]}, "firstTimestamp": nullable(TS), "lastTimestamp": nullable(TS),
    "firstCocoaTimestamp": nullable("number"), "lastCocoaTimestamp": nullable("number"), "bucketSeconds": N, "bucketCount": I,
    "transactionCount": I, "undatedTransactionCount": I, "lanes": arr(lane), "overflow": nullable(lane),
    "markers": arr(obj({"kind": {"enum": ["actor", "cutoff"]}, "name": S, "status": nullable(status), "timestamp": nullable(TS),
        "cocoaTimestamp": nullable("number"), "afterLastTransaction": B, "detail": S}))})

moment = nullable(obj({"transactionNumber": I, "timestamp": nullable(TS), "author": nullable("string")}))
stored = {"anyOf": [{"type": ["string", "number", "boolean", "null"]}, obj({"bytes": I, "hex": S}),
                    obj({"count": I, "first": arr(S)}), obj({"unread": S})]}
defs["object"] = doc("object", {"storeID": S, "object": S, "entity": S, "entityPK": I, "label": nullable("string"), "inStore": B,
    "table": nullable("string"), "version": nullable("integer"), "values": nullable({"type": "object", "additionalProperties": stored}),
    "missing": nullable("string"), "problems": arr(S), "transactions": arr(ref("transaction")),
    "summary": obj({"changes": I, "transactions": I, "first": moment, "last": moment, "inserted": moment, "deleted": moment})},
    optional=("label",))
end = nullable(obj({"transactionNumber": I, "timestamp": nullable(TS)}))
part = {"transactions": I, "changes": I, "first": end, "last": end,
        "authors": arr(obj({"author": nullable("string"), "transactions": I, "changes": I})),
        "entities": arr(obj({"entity": S, "changes": I}))}
side = obj({"path": S, "storeID": S, "transactions": I})
defs["diff"] = doc("diff", {"identical": B, "old": side, "new": side, "unchanged": obj({"transactions": I, "changes": I}),
    "removed": obj(part), "rewritten": obj(part),
    "added": obj({**part, "net": arr(obj({"entity": S, "inserted": I, "updated": I, "deleted": I, "insertedAndDeleted": I,
                                          "properties": arr(obj({"name": S, "objects": I}))}))})})
defs["stores"] = doc("stores", {"places": arr(S), "filesExamined": I,
    "stores": arr(obj({"name": S, "identifier": nullable("string"), "container": nullable({"enum": ["app", "app-group", "extension"]}),
                       "location": S, "file": S, "size": I, "walSize": nullable("integer"), "transactionCount": I,
                       "firstTransaction": nullable("integer"), "lastTransaction": nullable("integer"),
                       "oldest": nullable(TS), "newest": nullable(TS), "purged": B,
                       "health": {"enum": ["empty", "big-wal", "growing", "ok"]}, "defaults": arr(S), "tokenFiles": arr(S)})),
    "problems": arr(obj({"name": S, "problem": S}))})
defs["deleted"] = doc("deleted", {"storeID": S, "entities": arr(obj({
    "entity": S, "entityNumber": I, "deleted": I, "withTombstoneValues": I, "goneWithoutDelete": I,
    "firstDeleteTransaction": nullable("integer"), "lastDeleteTransaction": nullable("integer")})), "deleted": arr(obj({
    "status": {"enum": ["deleted", "gone-without-delete"]}, "entity": S, "entityNumber": I, "entityPK": I, "changedObjectID": S,
    "label": nullable("string"), "transactionNumber": I, "timestamp": nullable(TS), "cocoaTimestamp": nullable("number"),
    "author": nullable("string"), "contextName": nullable("string"), "bundleID": nullable("string"), "processID": nullable("string"),
    # A delete's change and tombstone; null for an object gone without a recorded delete.
    "changeID": nullable("integer"), "tombstone": defs["change"]["properties"]["tombstone"],
    "changeCount": I, "firstTransactionNumber": I}))})
defs["deletedLine"] = line(defs["deleted"]["properties"]["deleted"]["items"])
# export --format timesketch: one event per change, Timesketch's fields first.
defs["timesketchEvent"] = obj({
    "message": S, "datetime": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$"}, "timestamp": I,
    "timestamp_desc": {"enum": ["Core Data change recorded", "Core Data change recorded (transaction time unreadable)"]},
    "data_type": {"const": "coredata:history:change"}, "filename": S, "format": {"const": "cdhist/1"},
    "transactionNumber": I, "cocoaTimestamp": nullable("number"), "author": nullable("string"), "contextName": nullable("string"),
    "bundleID": nullable("string"), "processID": nullable("string"), "storeID": S,
    "atSave": S, **{k: v for k, v in defs["change"]["properties"].items() if k != "transactionNumber"},
}, optional=("atSave", "label", "valuesBefore", "valuesAfter", "valuesSave", "valuesExact", "valuesNote", "warnings"))
event = lambda name, props: obj({"format": {"const": "cdhist/1"}, "event": {"const": name}, **props})
defs["purgedEvent"] = event("purged", {"firstTransaction": I, "lastTransaction": I, "transactions": nullable("integer")})
defs["checkpointEvent"] = event("checkpoint", {"walBytes": nullable("integer")})
defs["massDeleteEvent"] = event("mass-delete", {"entity": S, "author": nullable("string"), "deleted": I, "objectsBefore": I,
                                                "firstTransaction": I, "lastTransaction": I})

rowCounts = lambda key: obj({key: S, "inserted": I, "updated": I, "deleted": I})
looseFrames = obj({"firstFrame": I, "lastFrame": I, "pages": I, "commits": I})
# A partial save's changes are not known: its counts are null.
saveMembers = {"save": I, "firstFrame": I, "lastFrame": I, "pages": I, "transactionNumbers": nullable(arr(I)), "transactionsRemoved": nullable(arr(I)),
               "changesAdded": nullable("integer"), "changesRemoved": nullable("integer"), "entities": nullable(arr(rowCounts("entity"))),
               "otherTables": nullable(arr(rowCounts("table"))),
               "withoutHistory": B, "exact": B, "why": nullable("string")}
defs["saveLine"] = obj({"format": {"const": "cdhist/1"}, **saveMembers})
defs["saves"] = doc("saves", {
    "store": S, "wal": obj({"path": S, "bytes": nullable("integer"), "pageSize": I, "frames": I, "damage": nullable("string")}),
    "backfilledFrames": I,
    "saves": arr(obj(saveMembers)),
    "unfinished": nullable(looseFrames), "olderGeneration": arr(looseFrames),
    "slotCheck": obj({"updates": I, "skipped": I, "changedProperties": I, "named": I, "unchangedBits": I,
                      "partialSaveUpdates": I, "byTrigger": I, "triggerProperties": arr(S),
                      "withoutBit": arr(obj({"changeID": I, "transactionNumber": I, "entity": S, "property": S})),
                      "uncertainLayouts": arr(obj({"entity": S, "property": S, "slot": I, "supporting": I, "refuting": I, "established": B}))}),
}, optional=("slotCheck",))

defs["recovered"] = doc("recovered", {
    "store": S, "storeID": S,
    "transactions": arr({**defs["transaction"], "properties": {**defs["transaction"]["properties"],
                                                                 "recoveredFrom": obj({"save": I, "removedBy": I, "exact": B, "why": nullable("string")})},
                         "required": defs["transaction"]["required"] + ["recoveredFrom"]}),
    "objects": arr(obj({"entity": S, "objectID": S, "values": nullable({"type": "object"}), "deletedBy": I, "deletedAt": nullable(TS), "exact": B,
                     "why": nullable("string"), "transactionNumbers": arr(I)})),
    "olderGeneration": arr(looseFrames),
    "unreadable": arr(obj({"save": I, "transactionsRemoved": I, "objectsDeleted": I, "why": S})),
})

# NDJSON's first line when the store is read at a save.
defs["atSaveLine"] = obj({"format": {"const": "cdhist/1"}, "kind": {"const": "atSave"}, "atSave": ref("atSave")})
kinds = {"atSave": "atSaveLine", "info": "info", "transactions": "transactions", "changes": "changes", "transaction": "show", "entities": "entities",
         "authors": "authors", "actors": "actors", "token": "tokenCheck", "purge-preview": "purgePreview",
         "purge-result": "purgeResult", "repair-defaults": "repairDefaults", "provoke": "provoke", "provoke-undo": "provokeUndo", "check": "check", "cloudkit": "cloudkit", "timeline": "timeline",
         "object": "object", "diff": "diff", "stores": "stores", "deleted": "deleted", "saves": "saves", "recovered": "recovered"}
schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://cdhist.invalid/schemas/cdhist.schema.json",
    "title": "cdhist JSON output (format cdhist/1)",
    "version": VERSION,
    "description": "A JSON document (it has a kind) or an NDJSON line (a transaction, possibly with its changes, a change, "
                   "an event watch saw, a Timesketch event of export --format timesketch, an object deleted lists, or a save saves lists).",
    "oneOf": [{"if": {"required": ["kind"]}, "then": {"oneOf": [ref(v) for v in kinds.values()]},
               "else": {"oneOf": [ref("transactionLine"), ref("changeLine"), ref("purgedEvent"), ref("checkpointEvent"),
                                 ref("massDeleteEvent"), ref("timesketchEvent"), ref("deletedLine"), ref("saveLine")]}}],
    "$defs": defs,
}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "cdhist.schema.json"), "w") as f:
    json.dump(schema, f, indent=1, sort_keys=True)
    f.write("\n")
