#!/usr/bin/env python3
"""Validates GitHub Actions workflow files (YAML) against SchemaStore's workflow schema beside
this script, and checks each `run:` script with `bash -n`.

Usage: validate.py FILE...  (a .yml file, or a Markdown file: its ```yaml blocks that hold `jobs:`)
Prints 'ok FILE' or the first error per workflow; exits 1 on any error.
"""
import json, os, re, subprocess, sys
import yaml
from jsonschema import Draft7Validator

schema = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "github-workflow.json")))
validator = Draft7Validator(schema)

def workflows(path):
    text = open(path).read()
    if not path.endswith(".md"):
        return [text]
    return [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if re.search(r"^jobs:", b, re.M)]

def check(doc):
    # YAML 1.1 reads the key `on` as true.
    if True in doc:
        doc["on"] = doc.pop(True)
    errors = list(validator.iter_errors(doc))
    if errors:
        best = max(errors, key=lambda e: len(list(e.absolute_path)))
        return f"{'/'.join(map(str, best.absolute_path))}: {best.message}"
    for job_id, job in doc.get("jobs", {}).items():
        for i, step in enumerate(job.get("steps", [])):
            if "run" in step and step.get("shell", "bash") == "bash":
                r = subprocess.run(["bash", "-n"], input=step["run"], text=True, capture_output=True)
                if r.returncode != 0:
                    return f"jobs/{job_id}/steps/{i}/run: {r.stderr.strip()}"
    return None

failed = False
for path in sys.argv[1:]:
    found = workflows(path)
    problems = [p for p in (check(yaml.safe_load(w)) for w in found) if p]
    if not found:
        problems = ["no workflow in it"]
    if problems:
        print(f"{path}: {problems[0]}")
        failed = True
    else:
        print(f"ok {path}")
sys.exit(1 if failed else 0)
