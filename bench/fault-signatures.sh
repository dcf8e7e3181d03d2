#!/usr/bin/env bash
# How many signatures one planted fault is filed under (issue 27): for each fault, a default
# campaign (modes direct,eager) with the fault planted, fresh output, no known reports; then the
# signatures it filed, the culprit each names, and whether that is the planted component
# (vmapfuzz_faults.COMPONENT). Run inside the environment with torch:
#
#   ci/sid-root.sh run bench/fault-signatures.sh [SECONDS] [SEED] [FAULT...]
#
# Default: 300 s each, seed 1, every forward fault. OUT (default bench-out/fault-signatures)
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
total=0; n=0
for fault in "$@"; do
  dir="$out/$fault"; rm -rf "$dir"
  "$bin" fuzz --time "$seconds" --seed "$seed" --fault "$fault" --known none --out "$dir" > "$dir.log" 2>&1 || true
  row=$(python3 - "$dir/findings" "$fault" "$faults_py" <<'PY'
import glob, json, os, subprocess, sys
folder, fault, faults_py = sys.argv[1:]
sys.path.insert(0, os.path.dirname(faults_py))
import vmapfuzz_faults  # the table only: importing it plants nothing
planted = vmapfuzz_faults.COMPONENT.get(fault, "")
mine, theirs, culprits = [], 0, {}
for meta_path in sorted(glob.glob(f"{folder}/*/meta.json")):
    meta = json.load(open(meta_path))
    repro = os.path.join(os.path.dirname(meta_path), "repro.py")
    # repro.py runs on clean torch: exit 0 there means the fault made the finding.
    clean = subprocess.run([sys.executable, repro], capture_output=True, timeout=600).returncode if os.path.exists(repro) else 1
    if clean != 0:
        theirs += 1
        continue
    mine.append(meta["signature"])
    c = (meta.get("culprits") or {}).get("culprit") or "(none)"
    culprits[c] = culprits.get(c, 0) + 1
named = ", ".join(f"{c} x{k}" + (" ✓" if c == planted else "") for c, k in sorted(culprits.items()))
print(f"| {fault} | {planted} | {len(mine)} | {named} | {theirs} |")
PY
)
  echo "$row"
  k=$(echo "$row" | awk -F'|' '{gsub(/ /,"",$4); print $4}')
  total=$((total + k)); n=$((n + 1))
done
echo
echo "$n faults, $total signatures of theirs in all (${seconds} s each, seed $seed)"
