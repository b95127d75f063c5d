#!/usr/bin/env bash
# Throughput of the mock store against Prism (@stoplight/prism-cli, npm) mocking the same document,
# on this machine, in the same run: starts `prism mock openapi/store-admin.yaml` on a free port of
# 127.0.0.1, runs `cargo bench -p store-admin-mock` with COMPARE_URL pointing at it, stops Prism by
# its pid, and prints the mock/Prism ratio for each concurrency level.
#
#   bash crates/store-admin-mock/benches/vs-prism.sh [criterion arguments, e.g. --measurement-time 5]
set -euo pipefail
cd "$(dirname "$0")/../../.."
PRISM_VERSION=5.16.0
node_dir=target/tools/node
prism="$node_dir/node_modules/.bin/prism"

if [ ! -x "$prism" ] || [ "$("$prism" --version 2>/dev/null || true)" != "$PRISM_VERSION" ]; then
  echo "installing @stoplight/prism-cli@$PRISM_VERSION under $node_dir"
  mkdir -p "$node_dir"
  [ -f "$node_dir/package.json" ] || (cd "$node_dir" && npm init -y >/dev/null)
  (cd "$node_dir" && npm install --silent --no-audit --no-fund "@stoplight/prism-cli@$PRISM_VERSION" >/dev/null)
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
log=$(mktemp)
prism_pid=
cleanup() {
  if [ -n "$prism_pid" ]; then kill "$prism_pid" 2>/dev/null || true; wait "$prism_pid" 2>/dev/null || true; fi
  rm -f "$log"
}
trap cleanup EXIT

"$prism" mock openapi/store-admin.yaml -h 127.0.0.1 -p "$port" >"$log" 2>&1 &
prism_pid=$!
probe="http://127.0.0.1:$port/products/quantities?per_page=60&page=2"
for _ in $(seq 1 300); do
  code=$(python3 - "$probe" <<'PY' 2>/dev/null || true
import sys, urllib.request, urllib.error
request = urllib.request.Request(sys.argv[1], headers={"Authorization": "Bearer bench-token"})
try:
    print(urllib.request.urlopen(request, timeout=1).status)
except urllib.error.HTTPError as error:
    print(error.code)
PY
)
  [ "$code" = "200" ] && break
  sleep 0.2
done
if [ "${code:-}" != "200" ]; then
  echo "Prism did not answer 200 on $probe (last: ${code:-none})"; tail -n 30 "$log"; exit 1
fi
echo "Prism $PRISM_VERSION (pid $prism_pid) mocking openapi/store-admin.yaml on 127.0.0.1:$port"

out=$(mktemp)
COMPARE_URL="http://127.0.0.1:$port" cargo bench -p store-admin-mock --bench list_products -- "$@" | tee "$out"
echo
echo "== mock / Prism, same machine, same run =="
grep '^ratio ' "$out" || { echo "no ratio lines (were the benches filtered out?)"; rm -f "$out"; exit 1; }
rm -f "$out"
