#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into OUT/<target>/, extracted
from the repository's fixtures and, when present, ../shared/real-stores.
Nothing is invented: every seed is a file, a blob or a row of those stores,
or (for fuzz-changes and fuzz-model) the same bytes in the target's framing.
Stores are copied to a temporary folder before SQLite opens them, so the
originals are never touched.

usage: make-seeds.py OUT [REPO]
"""
import hashlib
import os
import plistlib
import shutil
import sqlite3
import struct
import sys
import tempfile
import zlib

out = sys.argv[1]
repo = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), ".."))
fixtures = os.path.join(repo, "fixtures")
real = os.path.join(os.path.dirname(repo), "shared", "real-stores")
scratch = tempfile.mkdtemp(prefix="cdhist-seeds-")
counts = {}


seen = set()


def put(target, data, name):
    """Stores one seed, named after its source and content (duplicates are written once)."""
    digest = hashlib.sha1(data).hexdigest()[:16]
    if (target, digest) in seen:
        return
    seen.add((target, digest))
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{name}-{digest}"), "wb") as f:
        f.write(data)
    counts[target] = counts.get(target, 0) + 1


def files_under(root):
    for base, _, names in os.walk(root):
        for n in sorted(names):
            yield os.path.join(base, n)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def copy_store(path):
    """A private copy of a store with its -wal and -shm."""
    d = tempfile.mkdtemp(dir=scratch)
    target = os.path.join(d, "store.sqlite")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            shutil.copyfile(path + suffix, target + suffix)
    return target


# Stores in the order fuzz-changes numbers them (ChangeRows.contexts).
stores = [
    ("appgroup", os.path.join(fixtures, "AppGroup/Tasks.sqlite"), 0),
    ("nomodelcache", os.path.join(fixtures, "NoModelCache/Tasks.sqlite"), 1),
    ("purged", os.path.join(fixtures, "Purged/Tasks.sqlite"), 2),
    ("photos", os.path.join(real, "photos-10.15.7/Photos.sqlite"), 3),
    ("swiftdata", os.path.join(real, "swiftdata-resources/default.store"), 4),
    ("walpending", os.path.join(fixtures, "WALPending/Tasks.sqlite"), 0),
    ("mergestate", os.path.join(fixtures, "MergeState/Tasks.sqlite"), 0),
    ("groupcontainer", os.path.join(fixtures, "GroupContainer/3C9A1E57-8B2D-4F60-9E14-A7D5C2B8F031/Library/Application Support/Tasks.sqlite"), 0),
    ("cloudkit", os.path.join(fixtures, "CloudKit/Tasks.sqlite"), 0),
]
stores = [s for s in stores if os.path.exists(s[1])]

# Plist and token files of the fixtures and the real stores.
plist_files = [p for p in files_under(fixtures) if p.endswith((".plist", ".data", ".json"))]
if os.path.isdir(real):
    plist_files += [p for p in files_under(real) if p.endswith(".plist")]
for p in plist_files:
    data = read(p)
    name = os.path.basename(p).split(".")[0]
    put("plist", data, name)
    put("token", data, name)
    # The same plist in the other format, when Python can write it (not archives with UIDs in XML).
    try:
        value = plistlib.loads(data)
        other = plistlib.FMT_XML if data.startswith(b"bplist") else plistlib.FMT_BINARY
        put("plist", plistlib.dumps(value, fmt=other), name + "-converted")
        # Token archives held inside plists, on their own.
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, bytes) and item.startswith(b"bplist"):
                    put("token", item, name + "-inner")
    except Exception:
        pass

for name, path, context in stores:
    copy = copy_store(path)
    db = sqlite3.connect(copy)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    uuid = db.execute("SELECT Z_UUID FROM Z_METADATA").fetchone()[0]
    # Token literals and the store's metadata plist.
    last = db.execute("SELECT MAX(Z_PK) FROM ATRANSACTION").fetchone()[0] or 0
    put("token", f"{uuid}:{last}".encode(), name + "-literal")
    for (blob,) in db.execute("SELECT Z_PLIST FROM Z_METADATA"):
        if blob:
            put("plist", bytes(blob), name + "-metadata")
    # The store's strings (authors, contexts, bundles, processes), as fuzz-text reads them.
    if "ATRANSACTIONSTRING" in tables:
        for (text,) in db.execute("SELECT ZNAME FROM ATRANSACTIONSTRING WHERE ZNAME IS NOT NULL ORDER BY Z_PK LIMIT 200"):
            put("text", text.encode() if isinstance(text, str) else bytes(text), name + "-string")
    # Model caches: framed for fuzz-model (0: DEFLATE blob, 1: the archive inflated).
    if "Z_MODELCACHE" in tables:
        for (blob,) in db.execute("SELECT Z_CONTENT FROM Z_MODELCACHE"):
            blob = bytes(blob)
            put("model", b"\x00" + blob, name + "-cache")
            archive = zlib.decompress(blob, -15)
            put("model", b"\x01" + archive, name + "-archive")
            if len(archive) < 64 << 10:
                put("plist", archive, name + "-model-archive")
    # Change rows, framed for fuzz-changes (see ChangeRows), 16 rows per seed.
    columns = [r[1] for r in db.execute("PRAGMA table_info(ACHANGE)")]
    tombstones = sorted((c for c in columns if c.startswith("ZTOMBSTONE") and c[10:].isdigit()), key=lambda c: int(c[10:]))
    select = ", ".join(["ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS" if "ZCOLUMNS" in columns else "NULL"] + tombstones)
    rows = db.execute(f"SELECT {select} FROM ACHANGE ORDER BY Z_PK").fetchall()
    header = bytes([context, 0])
    for start in range(0, len(rows), 16):
        body = b""
        for row in rows[start:start + 16]:
            ctype, entity, pk, cols = row[0] or 0, row[1] or 0, row[2] or 0, row[3]
            body += struct.pack("<bhq", max(-128, min(127, ctype)), max(-32768, min(32767, entity)), pk)
            if cols is None:
                body += struct.pack("<H", 0xFFFF)
            else:
                cols = bytes(cols)[:0xFFFE]
                body += struct.pack("<H", len(cols)) + cols
            for value in row[4:]:
                if value is None:
                    body += b"\x00"
                elif isinstance(value, int):
                    body += b"\x01" + struct.pack("<q", value)
                elif isinstance(value, float):
                    body += b"\x02" + struct.pack("<d", value)
                elif isinstance(value, str):
                    text = value.encode()[:0xFFFF]
                    body += b"\x03" + struct.pack("<H", len(text)) + text
                else:
                    blob = bytes(value)[:0xFFFF]
                    body += b"\x04" + struct.pack("<H", len(blob)) + blob
        put("changes", header + body, f"{name}-{start // 16}")
    db.close()
    # Whole stores for fuzz-store: the main file followed by its WAL as found,
    # and the same store checkpointed into one file.
    main = read(path)
    wal = read(path + "-wal") if os.path.exists(path + "-wal") else b""
    put("store", main + wal, name + ("-wal" if wal else ""))
    if wal:
        db = sqlite3.connect(copy)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        put("store", read(copy), name + "-checkpointed")

# The xcdatamodel of the NoModelCache fixture, framed for fuzz-model (2: contents XML).
for p in files_under(fixtures):
    if os.path.basename(p) == "contents" and ".xcdatamodel" in p:
        put("model", b"\x02" + read(p), "xcdatamodel")

shutil.rmtree(scratch)
for target in sorted(counts):
    d = os.path.join(out, target)
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print(f"seeds: {target}: {counts[target]} files, {size} bytes")
if not os.path.isdir(real):
    print("seeds: ../shared/real-stores not found; seeds come from the fixtures only")
