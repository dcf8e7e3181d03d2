#!/usr/bin/env bash
# Issue 15's recall: which reports of reports/ a campaign re-found. A campaign's folder names are
# hashes of the signature at filing time, and filed reports' signatures have been migrated since
# (their meta.json keeps the current one and the old ones as aliases), so this matches each
# finding's signature against every report's signature and aliases.
#   bench/recall.sh OUT [REPORTS]      (OUT: a `vmapfuzz fuzz --out OUT` folder; REPORTS: reports/)
set -euo pipefail
OUT=$1 REPORTS=${2:-reports}
python3 - "$OUT/findings" "$REPORTS" <<'PY'
import glob, json, os, sys
found_dir, reports_dir = sys.argv[1:3]
owner = {}
for meta in glob.glob(os.path.join(reports_dir, "*", "meta.json")):
    j = json.load(open(meta))
    name = os.path.basename(os.path.dirname(meta))
    for sig in [j["signature"]] + j.get("aliases", []):
        owner[sig] = name
refound, new = {}, []
for meta in sorted(glob.glob(os.path.join(found_dir, "*", "meta.json"))):
    j = json.load(open(meta))
    name = os.path.basename(os.path.dirname(meta))
    if j["signature"] in owner:
        refound.setdefault(owner[j["signature"]], []).append(name)
    else:
        new.append(f'{name} ({j["signature"][:110]})')
print(f"re-found {len(refound)} reports: " + " ".join(sorted(refound)))
for n in new:
    print("not in reports:", n)
PY
