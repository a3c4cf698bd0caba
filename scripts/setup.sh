#!/usr/bin/env bash
# Everything hiwar needs on a fresh Debian 12 machine with Node 20: system tools, then npm ci.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for tool in espeak-ng ffmpeg sox; do
  command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends espeak-ng ffmpeg sox >/dev/null
fi

# onnxruntime-node (Silero VAD) ships its CPU binary in the npm package; its install script
# would only fetch optional GPU builds from elsewhere.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
