# Sourced by scripts/setup.sh. `with_heartbeat LABEL COMMAND…` runs COMMAND and, while it runs,
# writes "setup: LABEL still running (N s)…" to stderr every HIWAR_SETUP_BEAT_S seconds (60): npm ci
# prints nothing until it ends, which was 14 minutes of silence on a busy machine. Returns
# COMMAND's exit status; the heartbeat stops with it.
with_heartbeat() {
  local label=$1
  shift
  local start
  start=$(date +%s)
  "$@" &
  local cmd=$!
  (
    # Its sleep goes with it (and holds no pipe of ours): a caller piping setup's output is not
    # kept waiting up to a minute after the command has ended.
    trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep "${HIWAR_SETUP_BEAT_S:-60}" >/dev/null 2>&1 </dev/null &
      nap=$!
      wait "$nap"
      kill -0 "$cmd" 2>/dev/null || exit 0
      echo "setup: $label still running ($(( $(date +%s) - start )) s)…" >&2
    done
  ) &
  local beat=$!
  local status=0
  wait "$cmd" || status=$?
  kill "$beat" 2>/dev/null || true
  wait "$beat" 2>/dev/null || true
  return "$status"
}
