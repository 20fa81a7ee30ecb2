#!/usr/bin/env bash
# Machine set-up the npm install cannot do: Debian's Chromium for the trace report's browser
# test. Idempotent; skipped when /usr/bin/chromium is already there.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: Chromium is missing; run as root (or: sudo apt-get install -y chromium)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
fi
