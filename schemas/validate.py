#!/usr/bin/env python3
"""Validates cdhist JSON output against schemas/cdhist.schema.json.

Usage: validate.py FILE...  (each file: one JSON document, or NDJSON lines)
Prints 'ok N' or the first error per file; exits 1 on any error.
"""
import json, os, sys
from jsonschema import Draft202012Validator

schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cdhist.schema.json")))
validator = Draft202012Validator(schema)
failed = False
for path in sys.argv[1:]:
    text = open(path).read()
    try:
        docs = [json.loads(text)]
    except json.JSONDecodeError:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    for i, doc in enumerate(docs):
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            best = max(errors, key=lambda e: len(list(e.absolute_path)))
            # Dig into oneOf/anyOf to the deepest cause.
            while best.context:
                best = max(best.context, key=lambda e: len(list(e.absolute_path)))
            print(f"{path}: document {i + 1}: {'/'.join(map(str, best.absolute_path))}: {best.message}")
            failed = True
            break
    else:
        print(f"ok {len(docs)} {path}")
sys.exit(1 if failed else 0)
