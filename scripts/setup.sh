#!/usr/bin/env bash
# Machine set-up the npm install cannot do, from Debian's packages. Idempotent: each package is
# installed only when its binary is missing.
# - chromium: the trace report's browser test (required: fails without root).
# - bubblewrap: the OS sandbox around sandbox processes (runtime/os-sandbox). Installed where it
#   can be (root with apt-get); elsewhere a note, since run_code's default osSandbox "auto" runs
#   without it (saying so), and test/os-sandbox.test.ts then fails, naming it.
# - redis-server: the shared stores' tests (ptc-runtime/redis) start their own server on a random
#   loopback port. Installed where it can be; elsewhere a note, and those tests skip, saying why.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/bwrap ] || command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  for package in "${missing[@]}"; do
    if [ "$package" = chromium ]; then
      echo "setup: Chromium is missing; run as root on Debian (or: sudo apt-get install -y chromium)" >&2
      exit 1
    fi
    if [ "$package" = redis-server ]; then
      echo "setup: redis-server is missing (sudo apt-get install -y redis-server): the Redis store tests will skip" >&2
      continue
    fi
    echo "setup: bubblewrap is missing (sudo apt-get install -y bubblewrap): sandbox processes will run without the OS sandbox" >&2
  done
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
