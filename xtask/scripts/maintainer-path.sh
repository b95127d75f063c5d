#!/usr/bin/env bash
# The maintainer's path (issue 42's figure): the time from a document edit to green tests, for a new
# operation, at two commits measured in the same run.
#
#   bash xtask/scripts/maintainer-path.sh [BASELINE [CURRENT]]    (defaults: 8ef80c5^ and HEAD)
#
# For each commit, in a worktree of its own under target/maintainer/ (one shared target directory, so
# the dependencies are built once for both sides):
#   0. warm-up, not timed: the commit's tests of the snapshot crates are built as a maintainer's
#      checkout would have them built already;
#   1. the edit: a new operation `GET /orders/{order_id}/notes` (list_order_notes, answering the
#      order histories' list) inserted into openapi/store-admin.yaml;
#   2. `cargo xtask generate` (timed);
#   3. the README's snapshot command, `INSTA_UPDATE=always` with the tests of xtask,
#      store-admin-client and store-admin-cli (timed: the rebuild and the run), then the same without
#      updating, which must pass: the path is green when it does. What still fails is a hand step
#      left to the maintainer, printed with its test names.
# The closing lines print each side's seconds and the ratio. The commits' own tests use 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
baseline=${1:-8ef80c5^}
current=${2:-HEAD}
export CARGO_INCREMENTAL=0 CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
work=$root/target/maintainer
mkdir -p "$work"

edit() { # document
  python3 - "$1" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
anchor = "  /orders/{order_id}/histories:\n"
assert anchor in text, "no order histories path to insert beside"
operation = """  /orders/{order_id}/notes:
    get:
      operationId: list_order_notes
      tags: [Order Histories]
      summary: List the notes of an order
      description: |
        Lists the notes of one order (its history entries of `type: comment`), one page at a
        time.
      security:
        - oauth2: [orders.read]
        - oauth2: [orders.read_write]
      parameters:
        - $ref: '#/components/parameters/OrderId'
        - $ref: '#/components/parameters/Page'
        - $ref: '#/components/parameters/PerPage'
      responses:
        '200':
          description: One page of notes.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/OrderHistoryList'
        '401':
          $ref: '#/components/responses/Unauthorized'
        '404':
          $ref: '#/components/responses/NotFound'
        '429':
          $ref: '#/components/responses/TooManyRequests'
        '4XX':
          $ref: '#/components/responses/ClientError'
        '5XX':
          $ref: '#/components/responses/ServerError'
"""
open(path, "w").write(text.replace(anchor, operation + anchor, 1))
PY
}

# nextest, as CI runs them (`cargo test` runs a binary's tests as threads of one process, which
# the CLI's tests of environment and processes do not expect).
snapshot_tests=(cargo nextest run --locked -p xtask -p store-admin-client -p store-admin-cli)

declare -A seconds green
for side in baseline current; do
  rev=${!side}
  dir=$work/$side
  git worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
  git worktree prune
  git worktree add --quiet --detach "$dir" "$rev"
  echo "==> $side: $(git -C "$dir" log --oneline -1)"
  (cd "$dir" && "${snapshot_tests[@]}" --no-run > "$work/$side.warm.log" 2>&1) \
    || { tail -n 20 "$work/$side.warm.log"; echo "$side: the commit's own tests do not build"; exit 1; }
  edit "$dir/openapi/store-admin.yaml"
  started=$(date +%s.%N)
  (cd "$dir" && cargo xtask generate > "$work/$side.generate.log" 2>&1) \
    || { tail -n 20 "$work/$side.generate.log"; echo "$side: cargo xtask generate refused the edit"; }
  generated=$(date +%s.%N)
  (cd "$dir" && INSTA_UPDATE=always "${snapshot_tests[@]}" --no-fail-fast > "$work/$side.update.log" 2>&1) || true
  if (cd "$dir" && "${snapshot_tests[@]}" --no-fail-fast > "$work/$side.tests.log" 2>&1); then
    green[$side]=yes
  else
    green[$side]=no
    echo "$side: still failing after the snapshot update (hand steps):"
    grep -E "^\s+(FAIL|TIMEOUT) " "$work/$side.tests.log" | sort -u | head -n 20 || true
  fi
  finished=$(date +%s.%N)
  seconds[$side]=$(python3 -c "print(f'{$finished - $started:.0f}')")
  echo "$side: generate $(python3 -c "print(f'{$generated - $started:.1f}')") s, to the end of the second test run ${seconds[$side]} s, green: ${green[$side]}"
  echo "$side: files the edit changed: $(git -C "$dir" status --porcelain | wc -l)"
done
echo
echo "maintainer's path (edit -> generate -> snapshot tests updated -> tests run again), same run, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg):"
echo "  baseline $baseline ${seconds[baseline]} s (green: ${green[baseline]}), current ${seconds[current]} s (green: ${green[current]}): ratio $(python3 -c "print(f'{${seconds[current]} / max(${seconds[baseline]}, 1):.2f}')")"
