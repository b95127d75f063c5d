#!/usr/bin/env bash
# Memory of the mock store under 2,000 concurrent requests: starts the release binary (seed 1,
# 1,000 products, as the benchmarks), opens 2,000 connections at once and sends one request on
# each (a list page of 60 products: first the same page on every connection, the cached case,
# then a page with a query never seen before on each, the uncached case), and prints the process's
# resident memory (VmRSS) before, after each round, and its peak (VmHWM).
#
#   bash crates/store-admin-mock/benches/rss-concurrent.sh [CONNECTIONS, default 2000]
#
# It builds the binary with `cargo build --release` first (nothing to do when it is up to date);
# `MOCK_BIN=PATH` runs that binary instead (another build, to compare).
# Run it on a quiet machine for comparable figures: the peak depends on how many requests the
# server holds at once, which depends on how fast it answers.
set -euo pipefail
cd "$(dirname "$0")/../../.."
connections=${1:-2000}
bin=${MOCK_BIN:-}
if [ -z "$bin" ]; then
  cargo build --release -p store-admin-mock --bin store-admin-mock >&2
  bin=target/release/store-admin-mock
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$bin" --port "$port" --seed 1 --products 1000 --token bench-token >/dev/null 2>&1 &
mock_pid=$!
trap 'kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true' EXIT
# The soft limit of open files must hold the client's connections.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
python3 - "$port" "$mock_pid" "$connections" <<'PY'
import asyncio, sys, time

port, pid, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
page = "/admin/v2/products/quantities?per_page=60&page=2"

def memory():
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) // 1024
    return fields

async def one(path, start):
    await start.wait()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer bench-token\r\n"
        "Connection: close\r\n\r\n".encode()
    )
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer.split(b" ", 2)[1] if answer else b"none"

async def round_of(label, paths):
    start = asyncio.Event()
    tasks = [asyncio.create_task(one(p, start)) for p in paths]
    await asyncio.sleep(0.2)
    began = time.monotonic()
    start.set()
    codes = await asyncio.gather(*tasks, return_exceptions=True)
    took = time.monotonic() - began
    ok = sum(1 for c in codes if c == b"200")
    mem = memory()
    print(f"{label}: {ok}/{len(paths)} answered 200 in {took:.2f} s; "
          f"RSS {mem['VmRSS']} MiB, peak {mem['VmHWM']} MiB")

async def main():
    for _ in range(300):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            break
        except OSError:
            await asyncio.sleep(0.1)
    mem = memory()
    print(f"started: RSS {mem['VmRSS']} MiB")
    await round_of(f"{count} concurrent, cached page", [page] * count)
    await round_of(f"{count} concurrent, uncached pages",
                   [f"{page}&nocache={i}" for i in range(count)])

asyncio.run(main())
PY
