#!/usr/bin/env bash
# The benches against the compiled package (dist/, `npm run build` first) instead of the sources:
# a copy of bench/ in a temporary folder whose imports of src/, transports/ and agents/ point at
# dist/*.js. Usage: bash bench/on-dist.sh latency [ARGS…] (the same arguments as `npm run bench`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$ROOT/dist/src/index.js" ] || { echo "bench/on-dist.sh: no dist/: run npm run build first" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/bench"
for f in "$ROOT"/bench/*.ts; do
  sed -E "s#from '\.\./(src|transports|agents)/([^']+)\.ts'#from '$ROOT/dist/\1/\2.js'#g; s#import\('\.\./(src|transports|agents)/([^']+)\.ts'\)#import('$ROOT/dist/\1/\2.js')#g; s#'\.\./test/#'$ROOT/test/#g" "$f" > "$TMP/bench/$(basename "$f")"
done
ln -s "$ROOT/node_modules" "$TMP/node_modules"
echo '{"type":"module"}' > "$TMP/package.json"
cd "$ROOT" && node --expose-gc --import tsx "$TMP/bench/run.ts" "$@"
