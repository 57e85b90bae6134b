#!/usr/bin/env python3
"""Validates SARIF logs against the SARIF 2.1.0 schema beside this script.

Usage: validate.py FILE...  Prints 'ok FILE' or the first error per file; exits 1 on any error.
"""
import json, os, sys
from jsonschema import Draft4Validator

schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif-schema-2.1.0.json")))
validator = Draft4Validator(schema)
failed = False
for path in sys.argv[1:]:
    errors = sorted(validator.iter_errors(json.load(open(path))), key=lambda e: list(e.absolute_path))
    if errors:
        print(f"{path}: {'/'.join(map(str, errors[0].absolute_path))}: {errors[0].message}")
        failed = True
    else:
        print(f"ok {path}")
sys.exit(1 if failed else 0)
