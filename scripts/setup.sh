#!/usr/bin/env bash
# Everything hiwar needs on a fresh Debian 12 machine with Node 20: system tools, then npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive

# espeak-ng voices the sandbox; ffmpeg/sox handle audio files; chromium runs the WebRTC page's
# end-to-end test (driven by playwright-core, which never downloads a browser); redis-server is
# the shared state of a cluster of `hiwar serve` instances and the job queue of `hiwar worker`.
need=()
for tool in espeak-ng ffmpeg sox chromium redis-server; do
  command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# mediasoup (WebRTC) is optional; its C++ worker is built at install time. Where GitHub and PyPI
# cannot be reached (these machines, CI), scripts/mediasoup-offline builds it from the npm tarball
# with Debian's libraries. HIWAR_MEDIASOUP_PREBUILT=1 skips the kit on a machine with internet
# (mediasoup then downloads its prebuilt worker). A worker this script built is kept in
# ~/.cache/hiwar and reused while mediasoup's version and the kit stay the same.
KIT=scripts/mediasoup-offline
ms_version=$(node -p "(require('./package-lock.json').packages['node_modules/mediasoup'] || {}).version || ''")
ms_cache=""
if [ -n "$ms_version" ] && [ -z "${HIWAR_MEDIASOUP_PREBUILT:-}" ]; then
  if $SUDO env MEDIASOUP_OFFLINE_CACHE="$HOME/.cache/mediasoup-offline" sh "$KIT/prepare.sh"; then
    export MEDIASOUP_OFFLINE_CACHE="$HOME/.cache/mediasoup-offline"
    # shellcheck disable=SC1091
    . "$KIT/env.sh"
  else
    echo "setup: the tools for mediasoup's offline worker build could not be installed; WebRTC will be off" >&2
  fi
  kit_hash=$(cat "$KIT"/prepare.sh "$KIT"/install-shims.sh "$KIT"/env.sh | sha256sum | cut -c1-12)
  # hiwar's cache directory, as src/cache-dir.ts picks it (HIWAR_CACHE, an absolute XDG_CACHE_HOME, ~/.cache).
  case "${XDG_CACHE_HOME:-}" in /*) cache_root="$XDG_CACHE_HOME/hiwar" ;; *) cache_root="$HOME/.cache/hiwar" ;; esac
  ms_cache="${HIWAR_CACHE:-$cache_root}/mediasoup-worker-$ms_version-$kit_hash"
  [ -x "$ms_cache" ] && export MEDIASOUP_WORKER_BIN="$ms_cache"
fi

# Native addons (@discordjs/opus) build against the installed Node's headers, not downloaded ones.
[ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr

# onnxruntime-node (Silero VAD) ships its CPU binary in the npm package; its install script
# would only fetch optional GPU builds from elsewhere.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  start=$(date +%s)
  # npm ci prints nothing until it ends (minutes on a busy machine, with the native builds): say so
  # first, then a line a minute while it runs.
  echo "setup: npm ci: installing the dependencies (a few minutes; it prints nothing itself until it ends)…" >&2
  # shellcheck disable=SC1091
  . scripts/heartbeat.sh
  with_heartbeat "npm ci" npm ci --no-audit --no-fund --loglevel=error
  echo "setup: npm ci took $(( $(date +%s) - start )) s" >&2
fi

worker=node_modules/mediasoup/worker/out/Release/mediasoup-worker
if [ -n "$ms_version" ]; then
  if [ -n "${MEDIASOUP_WORKER_BIN:-}" ] && [ -d node_modules/mediasoup ] && [ ! -x "$worker" ]; then
    # The build was skipped for the cached worker: put it where mediasoup looks at run time.
    install -D -m 755 "$MEDIASOUP_WORKER_BIN" "$worker"
  elif [ -x "$worker" ] && [ -n "$ms_cache" ] && [ ! -x "$ms_cache" ]; then
    install -D -m 755 "$worker" "$ms_cache"
  fi
  if [ ! -x "$worker" ]; then
    echo "setup: WARNING: mediasoup's worker did not build, so WebRTC is off (hiwar serve says so)." >&2
    echo "setup: the WebRTC tests will fail until it builds; see docs/webrtc.md." >&2
    # Keep mediasoup's JavaScript and types (the type check needs them) without its worker.
    [ -d node_modules/mediasoup ] || npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error "mediasoup@$ms_version"
  fi
fi
