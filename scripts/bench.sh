#!/usr/bin/env bash
# Runs delta-memory's Go benchmarks several times and prints the median of
# every reported figure (ns/op, p50-ms, p99-ms, iterations/s, …), or hands
# the runs to benchstat when it is installed.
#
#   scripts/bench.sh                  # every benchmark, -count 5
#   COUNT=3 scripts/bench.sh recall   # one package
#   DELTA_BENCH_LARGE=1 scripts/bench.sh recall   # adds the 100k-iteration runs
#
# The machines are shared and noisy: quote medians, and the load average this
# prints beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
out=${OUT:-bench.out}
declare -A suites=(
  [append]="./journal AppendIteration 5000x"
  [import]="./journal ^BenchmarkImport 3x"
  [fold]="./fold SchedulerStep 200x"
  [window]="./internal/window Context 200x"
  [recall]="./recall Retrieve|Index 200x"
  [sync]="./internal/engine Sync 100x"
  [process]="./cmd/delta SyncProcess 100x"
)
order=(append import fold window recall sync process)
if [ $# -gt 0 ]; then order=("$@"); fi

: > "$out"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version)"
for name in "${order[@]}"; do
  spec=${suites[$name]:-}
  if [ -z "$spec" ]; then
    echo "unknown suite $name (known: ${!suites[*]})" >&2
    exit 2
  fi
  read -r pkg pattern benchtime <<<"$spec"
  echo "== $name: go test $pkg -bench '$pattern' -benchtime $benchtime -count $count" >&2
  go test "$pkg" -run '^$' -bench "$pattern" -benchtime "$benchtime" -count "$count" -timeout 120m | tee -a "$out" >&2
done

if command -v benchstat >/dev/null 2>&1; then
  benchstat "$out"
  exit 0
fi
# No benchstat: the median of each figure, per benchmark.
awk '
  /^Benchmark/ {
    name = $1
    for (i = 3; i + 1 <= NF; i += 2) {
      key = name " " $(i + 1)
      vals[key] = vals[key] " " $i
      if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
    }
  }
  END {
    for (k = 1; k <= n; k++) {
      m = split(substr(vals[keys[k]], 2), v, " ")
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
      med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
      printf "%-60s %14s %s  (median of %d)\n", keys[k], med, "", m
    }
  }' "$out"
