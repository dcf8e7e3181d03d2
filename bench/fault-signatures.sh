#!/usr/bin/env bash
# How many signatures one planted fault is filed under (issue 27): for each fault, a default
# campaign (modes direct,eager) with the fault planted, fresh output, no known reports; then the
# signatures it filed, the culprit each names, and whether that is the planted component
# (vmapfuzz_faults.COMPONENT). Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/fault-signatures.sh [SECONDS] [SEED] [FAULT...]
#
# Default: 300 s each, seed 1, every forward fault, JOBS=1 campaign at a time (JOBS=2 runs two
# side by side, one per core of a 2-core machine). OUT (default bench-out/fault-signatures)
# keeps each campaign's output folder. torch 2.14.1's own bugs are met too: a signature counts
# for the fault only when its finding passes without the fault (its repro.py on clean torch).
set -euo pipefail
seconds=${1:-300}; seed=${2:-1}; shift $(($# < 2 ? $# : 2))
bin=${BIN:-build/vmapfuzz}
out=${OUT:-bench-out/fault-signatures}
faults_py=harness/backends/torch/worker/vmapfuzz_faults.py
if [ $# -eq 0 ]; then
  set -- $(python3 "$faults_py" | awk -F'\t' '$2 !~ /^Gradient modes only/ && $3 != "" {print $1}')
fi
mkdir -p "$out"
echo "| fault | planted in | signatures of the fault | culprits named | torch's own (fail without it) |"
echo "| --- | --- | ---: | --- | ---: |"
# One fault's campaign and its table row (into $out/FAULT.row).
one_fault() {
  local fault=$1 dir="$out/$1"
  rm -rf "$dir"
  "$bin" fuzz --time "$seconds" --seed "$seed" --fault "$fault" --known none --out "$dir" > "$dir.log" 2>&1 || true
  python3 - "$dir/findings" "$fault" "$faults_py" > "$out/$fault.row" <<'PY'
import glob, json, os, subprocess, sys
folder, fault, faults_py = sys.argv[1:]
sys.path.insert(0, os.path.dirname(faults_py))
import vmapfuzz_faults  # the table only: importing it plants nothing
planted = vmapfuzz_faults.COMPONENT.get(fault, "")
mine, theirs, culprits = [], 0, {}
owned = open(os.path.join(os.path.dirname(os.path.dirname(folder)), f"{fault}.owned"), "w")  # this fault's own signatures, for the shared count
for meta_path in sorted(glob.glob(f"{folder}/*/meta.json")):
    meta = json.load(open(meta_path))
    repro = os.path.join(os.path.dirname(meta_path), "repro.py")
    # repro.py runs on clean torch: exit 0 there means the fault made the finding.
    clean = subprocess.run([sys.executable, repro], capture_output=True, timeout=600).returncode if os.path.exists(repro) else 1
    if clean != 0:
        theirs += 1
        continue
    mine.append(meta["signature"])
    owned.write(meta["signature"] + "\n")
    c = (meta.get("culprits") or {}).get("culprit") or "(none)"
    culprits[c] = culprits.get(c, 0) + 1
named = ", ".join(f"{c} x{k}" + (" ✓" if c == planted else "") for c, k in sorted(culprits.items()))
print(f"| {fault} | {planted} | {len(mine)} | {named} | {theirs} |")
PY
}
jobs=${JOBS:-1}
for fault in "$@"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
  one_fault "$fault" &
done
wait
total=0; n=0
for fault in "$@"; do
  row=$(cat "$out/$fault.row")
  echo "$row"
  k=$(echo "$row" | awk -F'|' '{gsub(/ /,"",$4); print $4}')
  total=$((total + k)); n=$((n + 1))
done
echo
echo "$n faults, $total signatures of theirs in all (${seconds} s each, seed $seed)"
# No two faults may share a signature (issue 27): each one that two or more faults own (their
# findings pass on clean torch), with the faults.
python3 - "$out" "$@" <<'PY'
import sys
out, faults = sys.argv[1], sys.argv[2:]
owners = {}
for f in faults:
    try:
        for sig in open(f"{out}/{f}.owned").read().splitlines():
            owners.setdefault(sig, set()).add(f)
    except FileNotFoundError:
        pass
shared = {s: o for s, o in owners.items() if len(o) > 1}
print(f"{len(shared)} signature(s) owned by two or more faults" + (":" if shared else ""))
for s, o in sorted(shared.items()):
    print(f"  {s}: {', '.join(sorted(o))}")
PY
