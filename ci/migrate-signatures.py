#!/usr/bin/env python3
"""Migrates the filed reports to the signatures vmapfuzz files today (issue 27: culprit
signatures), keeping every old signature as an alias so that nothing filed is met as new.

    ci/sid-root.sh run bench/culprits-of-reports.sh build/vmapfuzz OUT   # replays every report
    python3 ci/migrate-signatures.py OUT [REPORTS]                         # reads OUT, updates REPORTS

For each report folder (REPORTS, default reports/) it reads what the replay filed into OUT/<folder>/
(the finding of the mode the report was filed from) and, where the signature differs, makes the
new one the folder's "signature", appends the old one to "aliases", and records the "culprits".
Two folders whose new signatures are equal are one root cause: the later one (by name) is merged
into the first: its signature and aliases become the first's aliases, and its folder, with
"merged_into" set, moves into the first's `also/` (kept whole, its repro.py another example of
the root cause, and no longer loaded as a report of its own). Prints one line per folder.
Run it again after a change of the signature scheme; it changes nothing where nothing changed."""
import glob
import json
import os
import shutil
import sys


def replayed(out, name, mode):
    """meta.json of what the replay of report `name` filed in `mode` (None: nothing)."""
    metas = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(out, name, "*", "meta.json")))]
    same = [m for m in metas if m.get("environment", {}).get("mode") == mode]
    return (same or metas or [None])[0]


def main(out, reports):
    first = {}  # new signature -> the folder that holds it
    for path in sorted(glob.glob(os.path.join(reports, "*", "meta.json"))):
        name = os.path.basename(os.path.dirname(path))
        meta = json.load(open(path))
        if meta.get("merged_into"):
            continue
        new = replayed(out, name, meta.get("environment", {}).get("mode"))
        if new is None:
            print(f"{name}: not replayed (no finding: passes now, or no case.vf); unchanged")
            continue
        old, sig = meta["signature"], new["signature"]
        aliases = meta.setdefault("aliases", [])
        if new.get("culprits"):
            meta["culprits"] = new["culprits"]
        if sig in first and first[sig] != name:
            meta["merged_into"] = first[sig]
            target_path = os.path.join(reports, first[sig], "meta.json")
            target = json.load(open(target_path))
            for a in [old] + aliases:
                if a not in target.setdefault("aliases", []) and a != target["signature"]:
                    target["aliases"].append(a)
            write(target_path, target)
            write(path, meta)
            also = os.path.join(reports, first[sig], "also")
            os.makedirs(also, exist_ok=True)
            shutil.move(os.path.dirname(path), os.path.join(also, name))
            print(f"{name}: merged into {first[sig]} (one root cause: {sig})")
            continue
        elif sig != old:
            if old not in aliases:
                aliases.append(old)
            if sig in aliases:
                aliases.remove(sig)
            meta["signature"] = sig
            first[sig] = name
            print(f"{name}: {old}\n    -> {sig}")
        else:
            first[sig] = name
            print(f"{name}: unchanged")
        write(path, meta)


def write(path, meta):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "reports")
