#!/usr/bin/env bash
# The suite under load (docs/testing.md): `npm test` three times in a row while a second copy of
# it runs alongside, so that every run shares the machine with another whole suite (a load of
# 4 or more on 2 cores). Prints each run's result, wall time, load and failed files, then the
# total of failures; exits non-zero if any run failed.
#
#   bash scripts/suite-under-load.sh                 # the whole suite, 3 runs beside a second copy
#   RUNS=1 bash scripts/suite-under-load.sh test/session/pure.test.ts test/llm/llm.test.ts
#
# Arguments, if any, are the test files (as `npm test -- FILE…`); RUNS sets the runs in a row (3);
# OUT the folder for each run's whole output (a new temporary folder). Run it alone on the
# machine: the point is a load the suite makes itself, not another job's.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=${RUNS:-3}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/hiwar-under-load-XXXXXX")}
mkdir -p "$out"
load() { cut -d' ' -f1 /proc/loadavg; }

# The second copy: the same suite, again and again until the runs are over, its output kept
# apart, in a process group of its own (setsid) so that stopping it stops its runner too, which
# stops the files it started (scripts/test.mjs on SIGTERM).
setsid bash -c 'i=0; out=$1; shift; while :; do i=$((i + 1)); npm test -- "$@" >"$out/alongside-$i.log" 2>&1; done' alongside "$out" "$@" &
alongside=$!
stop_alongside() {
  kill -TERM -- "-$alongside" 2>/dev/null
  wait "$alongside" 2>/dev/null
}
trap stop_alongside EXIT

failed=0
echo "suite under load: $runs run(s), output in $out, load at start $(load)"
for n in $(seq 1 "$runs"); do
  log="$out/run-$n.log"
  start=$(date +%s)
  start_load=$(load)
  npm test -- "$@" >"$log" 2>&1
  code=$?
  wall=$(($(date +%s) - start))
  tests=$(sed -n 's/^# tests //p' "$log" | tail -1)
  pass=$(sed -n 's/^# pass //p' "$log" | tail -1)
  fail=$(sed -n 's/^# fail //p' "$log" | tail -1)
  files=$(sed -n 's/^# failed files: //p' "$log" | tail -1)
  echo "run $n: exit $code, ${tests:-?} tests, ${pass:-?} pass, ${fail:-?} fail, ${wall} s, load ${start_load} → $(load)${files:+, failed: $files}"
  [ "$code" -ne 0 ] && failed=$((failed + 1))
done
stop_alongside
trap - EXIT
# The copy alongside: its finished runs (the last one was stopped) and what failed in them.
for log in "$out"/alongside-*.log; do
  grep -q '^# duration_ms' "$log" || continue
  files=$(sed -n 's/^# failed files: //p' "$log" | tail -1)
  echo "alongside $(basename "$log" .log): $(sed -n 's/^# pass //p' "$log" | tail -1) pass, $(sed -n 's/^# fail //p' "$log" | tail -1) fail${files:+, failed: $files}"
done
echo "runs failed: $failed of $runs"
[ "$failed" -eq 0 ]
