#!/usr/bin/env bash
# The benches against the compiled package (dist/, `npm run build` first) instead of the sources:
# a copy of bench/ in a temporary folder whose imports of src/, transports/ and agents/ point at
# dist/*.js. Usage: bash bench/on-dist.sh latency [ARGS…] (the same arguments as `npm run bench`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ROOT/dist/src/index.js" ] || { echo "bench/on-dist.sh: no dist/: run npm run build first" >&2; exit 2; }
# What runs, before the figures: dist/ (not the sources), when it was built, the commit of the
# tree it sits in, and whether sources changed since the build (then the figures are not theirs).
BUILT=$(date -u -r "$ROOT/dist/src/index.js" '+%Y-%m-%d %H:%M:%S UTC')
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo 'unknown (not a git checkout)')
DIRTY=$( (git -C "$ROOT" status --porcelain -- src transports agents 2>/dev/null || true) | wc -l)
NEWER=$( (cd "$ROOT" && find src transports agents -name '*.ts' -newer dist/src/index.js 2>/dev/null || true) | wc -l)
echo "bench/on-dist.sh: running the compiled package dist/, built $BUILT, in a checkout at commit $COMMIT$([ "$DIRTY" -gt 0 ] && echo " with $DIRTY uncommitted source change(s)")"
[ "$NEWER" -gt 0 ] && echo "bench/on-dist.sh: $NEWER source file(s) changed since dist/ was built: these figures are of the older build (npm run build to bring it up to date)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bench"
for f in "$ROOT"/bench/*.ts; do
  sed -E "s#from '\.\./(src|transports|agents)/([^']+)\.ts'#from '$ROOT/dist/\1/\2.js'#g; s#import\('\.\./(src|transports|agents)/([^']+)\.ts'\)#import('$ROOT/dist/\1/\2.js')#g; s#'\.\./test/#'$ROOT/test/#g" "$f" > "$TMP/bench/$(basename "$f")"
done
ln -s "$ROOT/node_modules" "$TMP/node_modules"
echo '{"type":"module"}' > "$TMP/package.json"
cd "$ROOT" && node --expose-gc --import tsx "$TMP/bench/run.ts" "$@"
