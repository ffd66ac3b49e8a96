#!/usr/bin/env bash
# Installs what the test suite needs and is missing: tmux (live monitor in a pseudo-terminal),
# Chromium (report screenshot), Jupyter nbconvert and Deno's Jupyter kernel (notebooks), and
# Debian's python3-httpx (the peer harness in scripts/peer, run by tests/peer_harness_test.ts).
# Idempotent and quiet when everything is present. Needs root (or sudo) for apt-get, and waits up
# to 5 minutes for the package lock when another apt or dpkg holds it.
set -euo pipefail
need=()
command -v tmux >/dev/null 2>&1 || need+=(tmux)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v jupyter-nbconvert >/dev/null 2>&1 || need+=(jupyter-nbconvert python3-ipykernel)
/usr/bin/python3 -c "import httpx" >/dev/null 2>&1 || need+=(python3-httpx)
if ((${#need[@]})); then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "installing test dependencies: ${need[*]}" >&2
  # Another apt or dpkg (an unattended upgrade) may hold the package lock: wait up to 5 minutes.
  wait_lock=(-o DPkg::Lock::Timeout=300)
  $sudo apt-get "${wait_lock[@]}" update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get "${wait_lock[@]}" install -y -qq \
    --no-install-recommends "${need[@]}" >/dev/null
fi
# Deno's Jupyter kernel (Debian's jupyter has no kernelspec command: look for the file).
kernels="${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/deno/kernel.json"
if command -v jupyter-nbconvert >/dev/null 2>&1 && [ ! -f "$kernels" ]; then
  deno jupyter --install >/dev/null 2>&1 || deno jupyter --install
fi
