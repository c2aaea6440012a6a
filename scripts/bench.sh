#!/usr/bin/env bash
# Runs delta-memory's Go benchmarks several times and prints the median of
# every reported figure (ns/op, p50-ms, p99-ms, iterations/s, …), or hands
# the runs to benchstat when it is installed.
#
# Every benchmark runs on runs of 1,000 and 10,000 iterations (sync and
# process at 100 too). DELTA_BENCH_LARGE=1 adds 100,000: the first time,
# building those fixtures takes several minutes each; they are kept in
# ~/.cache/delta-memory/bench-runs (DELTA_BENCH_CACHE sets another place)
# for as long as the sources do not change. SIZE keeps one length only.
#
#   scripts/bench.sh                          # every suite, -count 5
#   COUNT=3 scripts/bench.sh retrieve sync    # some suites
#   DELTA_BENCH_LARGE=1 scripts/bench.sh      # adds the 100k-iteration runs
#   SIZE=100000 scripts/bench.sh              # the 100k runs only (sets DELTA_BENCH_LARGE=1)
#
# Suites: append, import, reimport, step, context, retrieve, index, sync,
# process (fold, window and recall are the old names of step, context and
# retrieve+index). OUT names the raw output file (bench.out).
#
# The machines are shared and noisy: quote medians, and the load average this
# prints beside them.
set -euo pipefail
cd "$(dirname "$0")/.."

count=${COUNT:-5}
out=${OUT:-bench.out}
size=${SIZE:-}
# Each suite: package, benchmark, -benchtime. Append adds one iteration per
# op to the run, so its benchtime stays well below 1,000; step takes at
# most testrun.BenchExtra; sync and process at most testrun.WorkspaceNext
# in all (-count times one plus the benchtime).
declare -A suites=(
  [append]='./journal ^BenchmarkAppendIteration$ 300x'
  [import]='./journal ^BenchmarkImport$ 3x'
  [reimport]='./journal ^BenchmarkReimportUnchanged$ 200x'
  [step]='./fold ^BenchmarkSchedulerStep$ 200x'
  [context]='./window ^BenchmarkContext$ 200x'
  [retrieve]='./recall ^BenchmarkRetrieve$ 200x'
  [index]='./recall ^BenchmarkIndex$ 1x'
  [sync]='. ^BenchmarkSync$ 100x'
  [process]='./cmd/delta ^BenchmarkSyncProcess$ 100x'
)
order=(append import reimport step context retrieve index sync process)
if [ $# -gt 0 ]; then
  order=()
  for name in "$@"; do
    case $name in
      fold) order+=(step) ;;
      window) order+=(context) ;;
      recall) order+=(retrieve index) ;;
      *) order+=("$name") ;;
    esac
  done
fi
for name in "${order[@]}"; do
  if [ -z "${suites[$name]:-}" ]; then
    echo "unknown suite $name (known: ${!suites[*]})" >&2
    exit 2
  fi
done
if [ "$size" = 100000 ]; then
  export DELTA_BENCH_LARGE=1
fi

: > "$out"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(go version)"
for name in "${order[@]}"; do
  read -r pkg pattern benchtime <<<"${suites[$name]}"
  if [ -n "$size" ]; then
    pattern="$pattern/^iterations=$size\$"
  fi
  echo "== $name: go test $pkg -bench '$pattern' -benchtime $benchtime -count $count" >&2
  go test "$pkg" -run '^$' -bench "$pattern" -benchtime "$benchtime" -count "$count" -timeout 180m | tee -a "$out" >&2
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

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
      printf "%-60s %14s  (median of %d)\n", keys[k], med, m
    }
  }' "$out"
