//! `cargo bench -p store-admin`: each figure a ratio against a baseline measured in the same run.
//!
//! - overhead: calls per second through `StoreAdmin` (auth, retry bookkeeping, tracing span, body
//!   buffering) against bare `reqwest` + `serde_json` decoding the same generated type from the
//!   same loopback mock. Target: at least 0.97. Also printed: the client thread's CPU time per
//!   call on each side (Linux), and what `StoreAdmin` adds to it; and the ratio by the method
//!   issue 12 first measured it with (one runtime shared with the mock), to compare by.
//! - export: every page of about 10,000 product quantities at 60 per page with 25 ms of added
//!   latency per request, pages fetched 10 at a time against one after the other. Target: at least
//!   6 times faster. Peak heap memory of each export is measured with `peak_alloc`.
//! - export with undecodable records: the same 10,000 rows (no added latency, 4 pages at a time)
//!   with 1 % of the records undecodable (the mock's `corrupt_records`), skipped and reported,
//!   against the clean export, in interleaved rounds. Both pass through the mock's list rewrite
//!   (the clean one with no record to corrupt), so the ratio is the client's cost of the bad
//!   records alone: reading each page that holds one again, record by record.
//! - drift counting: `call()` with `with_drift_counting` against without, under sustained load
//!   (the counting thread's burst spent first). Target: at least 0.95.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use futures::TryStreamExt;
use peak_alloc::PeakAlloc;
use store_admin::prelude::*;
use store_admin::{PageOptions, Paginate, Skipped, StoreAdmin, types};
use store_admin_mock::{CorruptRecordsFault, FaultConfig, LatencyFault, MockConfig, MockServer};

const TOKEN: &str = "bench-token";

#[global_allocator]
static ALLOCATOR: PeakAlloc = PeakAlloc;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn admin(server: &MockServer) -> StoreAdmin {
    StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .build()
        .expect("client")
}

/// The mock the overhead is measured against (1,000 products), started on `rt`.
fn page_mock(rt: &tokio::runtime::Runtime) -> MockServer {
    rt.block_on(MockServer::start(
        MockConfig::new().products(1000).token_all_scopes(TOKEN),
    ))
    .expect("mock")
}

/// The URL of the product quantities page the overhead is measured on, with `query`.
fn page_url(server: &MockServer, query: &str) -> String {
    format!("{}/products/quantities?{query}", server.base_url())
}

/// Mean seconds per iteration from criterion's estimates of `group/name` in this run.
fn mean_seconds(group: &str, name: &str) -> Option<f64> {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../target").to_string());
    let path = format!("{dir}/criterion/{group}/{name}/new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    value
        .pointer("/mean/point_estimate")?
        .as_f64()
        .map(|ns| ns / 1e9)
}

fn overhead(c: &mut Criterion) {
    let rt = runtime();
    let server = page_mock(&rt);
    let admin = admin(&server);
    let bare = reqwest::Client::new();
    let url = page_url(&server, "per_page=60&page=2");

    let mut group = c.benchmark_group("overhead");
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("bare_reqwest_serde", |b| {
        b.to_async(&rt).iter(|| bare_page(bare.get(&url)))
    });
    let generated = generated_client(&server);
    group.bench_function("generated_client", |b| {
        b.to_async(&rt).iter(|| client_page(&generated))
    });
    group.bench_function("store_admin", |b| {
        b.to_async(&rt).iter(|| client_page(&admin))
    });
    group.finish();
}

/// The generated client with no interceptor (the token a default header): separates progenitor's
/// own cost from ours.
fn generated_client(server: &MockServer) -> store_admin_client::Client {
    store_admin_client::Client::new_with_client(
        server.base_url(),
        reqwest::Client::builder()
            .default_headers(
                [(
                    reqwest::header::AUTHORIZATION,
                    format!("Bearer {TOKEN}").parse().expect("header"),
                )]
                .into_iter()
                .collect(),
            )
            .build()
            .expect("client"),
        store_admin_client::Inner::new(),
    )
}

/// One page through bare reqwest + serde_json: `request` sent with the token, the body read and
/// decoded as the generated type.
async fn bare_page(request: reqwest::RequestBuilder) {
    let body = request
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("sent")
        .bytes()
        .await
        .expect("body");
    let page: types::ProductQuantityList = serde_json::from_slice(&body).expect("decodes");
    assert_eq!(page.data.len(), 60);
}

/// The same page through the generated client: `StoreAdmin`'s (it derefs to one), or one without
/// its runtime.
async fn client_page(client: &store_admin_client::Client) {
    let page = client
        .list_product_quantities()
        .page(2u64)
        .per_page(60u64)
        .send()
        .await
        .expect("sent");
    assert_eq!(page.data.len(), 60);
}

/// The setting of the isolated measures: the mock (1,000 products) serving from a runtime of its
/// own with one worker thread, and a single-threaded runtime for the client. The mock's runtime is
/// returned to be kept: dropping it stops the mock.
fn isolated() -> (tokio::runtime::Runtime, MockServer, tokio::runtime::Runtime) {
    let mock_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("mock runtime");
    let server = page_mock(&mock_runtime);
    let client_runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    (mock_runtime, server, client_runtime)
}

/// The overhead ratio measured in interleaved rounds (each round runs the four sides one after
/// the other, in an order that rotates from round to round), so that load from other processes
/// drifting during the run hits every side alike; medians of the rounds. The mock serves from a
/// runtime of its own (one worker thread) and the clients run on a single-threaded runtime, so
/// that the two sides do not trade places on the same threads (on 2 cores that scheduling noise
/// moved the ratio by several points between runs). Also a second bare baseline sending byte for
/// byte the request the generated builder sends (its query order, `accept` and `api-version`),
/// which tells the mock's side from the client's. And the client thread's CPU time per call on
/// each side (Linux), which the mock's share and the machine's drift in wall time do not blur.
fn interleaved_overhead_ratio() -> Overhead {
    const CALLS: usize = 200;
    const ROUNDS: usize = 40;
    let (_mock_runtime, server, rt) = isolated();
    let admin = admin(&server);
    let bare = reqwest::Client::new();
    let url = page_url(&server, "per_page=60&page=2");
    let same_url = page_url(&server, "page=2&per_page=60");
    let api_version = <store_admin_client::Client as store_admin_client::ClientInfo<
        store_admin_client::Inner,
    >>::api_version();
    // Calls per second of side 0 (bare), 1 (bare, the generated request), 2 (StoreAdmin through
    // the builder's `send()`, which the generated code decodes) and 3 (StoreAdmin's `call()`,
    // which decodes the bytes the runtime read).
    let side = |which: usize| {
        let (admin, bare, url, same_url) = (&admin, &bare, &url, &same_url);
        async move {
            let started = Instant::now();
            for _ in 0..CALLS {
                match which {
                    0 => bare_page(bare.get(url)).await,
                    1 => {
                        bare_page(
                            bare.get(same_url)
                                .header(reqwest::header::ACCEPT, "application/json")
                                .header("api-version", api_version),
                        )
                        .await
                    }
                    2 => client_page(admin).await,
                    _ => called_page(admin).await,
                }
            }
            CALLS as f64 / started.elapsed().as_secs_f64()
        }
    };
    let mut rates: [Vec<f64>; 4] = Default::default();
    let mut cpu_seconds = [0.0; 4];
    let mut ratios = Vec::new();
    let mut same_ratios = Vec::new();
    let mut call_ratios = Vec::new();
    rt.block_on(async {
        for round in 0..=ROUNDS {
            let mut rate = [0.0; 4];
            for k in 0..4 {
                let which = (round + k) % 4;
                let cpu_before = thread_cpu_seconds();
                rate[which] = side(which).await;
                if round > 0
                    && let (Some(before), Some(after)) = (cpu_before, thread_cpu_seconds())
                {
                    cpu_seconds[which] += after - before;
                }
            }
            if round > 0 {
                // Round 0 warms every side up.
                for (all, r) in rates.iter_mut().zip(rate) {
                    all.push(r);
                }
                ratios.push(rate[2] / rate[0]);
                same_ratios.push(rate[2] / rate[1]);
                call_ratios.push(rate[3] / rate[0]);
            }
        }
    });
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let [bare_rates, same_rates, ours_rates, call_rates] = &mut rates;
    let calls = (CALLS * ROUNDS) as f64;
    Overhead {
        bare: median(bare_rates),
        same: median(same_rates),
        ours: median(ours_rates),
        call: median(call_rates),
        ratio: median(&mut ratios),
        same_ratio: median(&mut same_ratios),
        call_ratio: median(&mut call_ratios),
        cpu_micros: thread_cpu_seconds()
            .is_some()
            .then(|| cpu_seconds.map(|total| total / calls * 1e6)),
    }
}

/// The overhead ratio as issue 12 first measured it (0.948 and 0.988 on the code before it): the
/// mock and the client on one shared multi-threaded runtime, 20 rounds of 200 calls, bare then
/// `StoreAdmin` in each; the median of the rounds' ratios. Kept beside the isolated measure above
/// so that the code before and after can be compared by the same method.
fn shared_runtime_overhead_ratio() -> f64 {
    const CALLS: usize = 200;
    let rt = runtime();
    let server = page_mock(&rt);
    let admin = admin(&server);
    let bare = reqwest::Client::new();
    let url = page_url(&server, "per_page=60&page=2");
    let mut ratios = Vec::new();
    rt.block_on(async {
        for round in 0..21 {
            let started = Instant::now();
            for _ in 0..CALLS {
                bare_page(bare.get(&url)).await;
            }
            let bare_rate = CALLS as f64 / started.elapsed().as_secs_f64();
            let started = Instant::now();
            for _ in 0..CALLS {
                client_page(&admin).await;
            }
            let ours_rate = CALLS as f64 / started.elapsed().as_secs_f64();
            // Round 0 warms both up.
            if round > 0 {
                ratios.push(ours_rate / bare_rate);
            }
        }
    });
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// What [`interleaved_overhead_ratio`] measured: medians of calls per second of bare reqwest,
/// bare reqwest sending the generated request, and `StoreAdmin`; the medians of the per-round
/// ratios; the client thread's mean CPU microseconds per call on each side, where the system
/// reports it.
struct Overhead {
    bare: f64,
    same: f64,
    ours: f64,
    call: f64,
    ratio: f64,
    same_ratio: f64,
    call_ratio: f64,
    cpu_micros: Option<[f64; 4]>,
}

/// CPU time this thread has run, in seconds (Linux: `/proc/thread-self/schedstat`, nanoseconds).
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e9)
}

fn export(c: &mut Criterion) {
    let rt = runtime();
    // About 2.05 rows per product (variants): 4,880 products give about 10,000 rows.
    let server = rt
        .block_on(MockServer::start(
            MockConfig::new()
                .products(4880)
                .token_all_scopes(TOKEN)
                .faults(FaultConfig {
                    latency: Some(LatencyFault {
                        millis: 25,
                        operations: vec![],
                    }),
                    ..FaultConfig::default()
                }),
        ))
        .expect("mock");
    let admin = admin(&server);
    let count = |concurrency: usize| {
        let admin = admin.clone();
        async move {
            admin
                .list_product_quantities()
                .items(PageOptions::default().per_page(60).concurrency(concurrency))
                .try_fold(0usize, |n, _| async move { Ok(n + 1) })
                .await
                .expect("export")
        }
    };
    let rows = rt.block_on(count(10));
    println!(
        "export: {rows} product quantity rows, {} pages of 60",
        rows.div_ceil(60)
    );

    let mut group = c.benchmark_group("export");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("sequential", |b| b.to_async(&rt).iter(|| count(1)));
    group.bench_function("concurrent_10", |b| b.to_async(&rt).iter(|| count(10)));
    group.finish();

    for concurrency in [1usize, 10] {
        rt.block_on(async {
            let before = ALLOCATOR.current_usage_as_mb();
            ALLOCATOR.reset_peak_usage();
            let started = Instant::now();
            let n = count(concurrency).await;
            println!(
                "export memory: concurrency {concurrency}: {n} rows in {:.2?}, peak heap {:.1} MiB ({:.1} MiB before)",
                started.elapsed(),
                ALLOCATOR.peak_usage_as_mb(),
                before,
            );
        });
    }
}

/// Exports the 10,000 product quantity rows of `server` once, skipping undecodable records:
/// the rows written, the records skipped, the time taken.
async fn lenient_export(admin: &StoreAdmin) -> (usize, usize, Duration) {
    let skipped = Skipped::new();
    let started = Instant::now();
    let rows = admin
        .list_product_quantities()
        .items(
            PageOptions::default()
                .per_page(60)
                .concurrency(4)
                .skip_undecodable(&skipped),
        )
        .try_fold(0usize, |n, _| async move { Ok(n + 1) })
        .await
        .expect("a lenient export does not fail on a record");
    (rows, skipped.len(), started.elapsed())
}

/// The undecodable-records export against the clean one: medians of interleaved rounds.
fn undecodable_export_ratio() {
    const ROUNDS: usize = 21;
    let rt = runtime();
    let server = rt
        .block_on(MockServer::start(
            MockConfig::new().products(4880).token_all_scopes(TOKEN),
        ))
        .expect("mock");
    let admin = admin(&server);
    let corrupt = |every: u64| FaultConfig {
        corrupt_records: Some(CorruptRecordsFault {
            every,
            operations: vec!["list_product_quantities".into()],
        }),
        ..FaultConfig::default()
    };
    // Each round exports clean, dirty and clean again, in an order that rotates from round to
    // round (no side always follows another). The second clean export against the first is the
    // measure's own noise: what a ratio of 1.000 looks like on this machine.
    let (mut clean, mut dirty, mut again) = (Vec::new(), Vec::new(), Vec::new());
    let (mut clean_rows, mut dirty_rows, mut skipped) = (0, 0, 0);
    for round in 0..=ROUNDS {
        for side in (0..3).map(|i| (i + round) % 3) {
            let every = if side == 1 { 100 } else { u64::MAX };
            server.set_faults(corrupt(every)).expect("faults");
            let (rows, bad, time) = rt.block_on(lenient_export(&admin));
            if side == 1 {
                assert_eq!(bad, (rows + bad) / 100, "every 100th record is reported");
                (dirty_rows, skipped) = (rows, bad);
            } else {
                assert_eq!(bad, 0, "the clean export skips nothing");
                clean_rows = rows;
            }
            // The first round warms the connections and the mock's caches.
            if round > 0 {
                [&mut clean, &mut dirty, &mut again][side].push(time);
            }
        }
    }
    assert_eq!(
        dirty_rows + skipped,
        clean_rows,
        "every good record is written"
    );
    let median = |times: &mut Vec<Duration>| {
        times.sort();
        times[times.len() / 2]
    };
    let (clean, dirty, again) = (median(&mut clean), median(&mut dirty), median(&mut again));
    println!(
        "export with 1% undecodable records ({ROUNDS} rounds, the order rotating, medians): \
         {dirty_rows} of {clean_rows} rows written, {skipped} skipped and reported, in {dirty:.2?} \
         vs the clean export's {clean:.2?}: ratio {:.3}; the clean export again: {again:.2?}, \
         ratio {:.3} (the measure's noise)",
        dirty.as_secs_f64() / clean.as_secs_f64(),
        again.as_secs_f64() / clean.as_secs_f64()
    );
}

criterion_group!(benches, overhead, export);

/// `client -- profile SIDE CALLS` (SIDE `bare`, `generated`, `store_admin` or `call`): CALLS
/// calls of one side alone, on the client runtime of the interleaved measure, inside
/// [`profiled_calls`], for a profiler to count: `valgrind --tool=callgrind --collect-atstart=no
/// --toggle-collect='*profiled_calls*'` counts the client thread's instructions per call
/// (repeatable, whatever else the machine does), and the difference between two sides is what one
/// adds.
fn profile(side: &str, calls: usize) {
    let (_mock_runtime, server, rt) = isolated();
    let admin = admin(&server);
    let generated = generated_client(&server);
    let bare = reqwest::Client::new();
    let url = page_url(&server, "per_page=60&page=2");
    let call = |warm: bool| {
        let n = if warm { 50 } else { calls };
        let (admin, generated, bare, url) = (&admin, &generated, &bare, &url);
        async move {
            for _ in 0..n {
                match side {
                    "bare" => bare_page(bare.get(url)).await,
                    "generated" => client_page(generated).await,
                    "store_admin" => client_page(admin).await,
                    "call" => called_page(admin).await,
                    other => {
                        panic!("profile: no side {other:?} (bare, generated, store_admin, call)")
                    }
                }
            }
        }
    };
    rt.block_on(call(true));
    let started = Instant::now();
    profiled_calls(&rt, call(false));
    println!(
        "profile: {calls} calls of {side} in {:.2?}",
        started.elapsed()
    );
}

/// What a profiler counts in [`profile`]: `calls` driven to the end on `rt`.
#[inline(never)]
fn profiled_calls(rt: &tokio::runtime::Runtime, calls: impl Future<Output = ()>) {
    rt.block_on(calls);
}

/// The measured page through `StoreAdmin`'s `call()`.
async fn called_page(admin: &StoreAdmin) {
    let page = admin
        .list_product_quantities()
        .page(2u64)
        .per_page(60u64)
        .call()
        .await
        .expect("a page");
    assert_eq!(page.data.len(), 60);
}

/// Drift counting's cost: `call()` of a client built `with_drift_counting` against the same
/// client without, in interleaved rounds (the order alternating), on the isolated setting; the
/// median of the rounds' ratios (on / off calls per second). Target: at least 0.95 (at most 5 %
/// more). A 60-record page whose answer needs no habit: the cost is the second decode, with the
/// path kept.
fn drift_overhead_ratio() -> f64 {
    const CALLS: usize = 200;
    const ROUNDS: usize = 30;
    let (_mock_runtime, server, rt) = isolated();
    let off = admin(&server);
    let on = StoreAdmin::builder()
        .with_base_url(server.base_url())
        .with_token(TOKEN)
        .with_drift_counting()
        .build()
        .expect("client");
    let rate = |admin: &StoreAdmin| {
        let admin = admin.clone();
        async move {
            let started = Instant::now();
            for _ in 0..CALLS {
                called_page(&admin).await;
            }
            CALLS as f64 / started.elapsed().as_secs_f64()
        }
    };
    // Sustained load: the counting thread's burst (half a second of its work, see
    // `store_admin::drift`) is spent first, as it is a second into a service's busy loop; the
    // rounds then measure what counting costs while the traffic lasts.
    let warm_calls = rt.block_on(async {
        let mut calls = 0;
        while calls < 100_000 {
            called_page(&on).await;
            calls += 1;
            if calls % 100 == 0 && on.drift().operations["list_product_quantities"].unexamined > 0 {
                break;
            }
        }
        calls
    });
    let before = on.drift().operations["list_product_quantities"].clone();
    let mut ratios = Vec::new();
    rt.block_on(async {
        for round in 0..=ROUNDS {
            let (first, second) = if round % 2 == 0 {
                (&off, &on)
            } else {
                (&on, &off)
            };
            let a = rate(first).await;
            let b = rate(second).await;
            let (off_rate, on_rate) = if round % 2 == 0 { (a, b) } else { (b, a) };
            if round > 0 {
                ratios.push(on_rate / off_rate);
            }
        }
    });
    let after = on.drift().operations["list_product_quantities"].clone();
    let (looked, passed) = (
        after.calls - before.calls,
        after.unexamined - before.unexamined,
    );
    assert!(looked > 0, "the counting client counted");
    println!(
        "drift counting: the burst spent after {warm_calls} calls; then {looked} of {} answers \
         looked at ({:.1} %), the others passed by as unexamined",
        looked + passed,
        100.0 * looked as f64 / (looked + passed).max(1) as f64
    );
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// Prints what [`interleaved_overhead_ratio`] measured.
fn print_overhead(overhead: Overhead) {
    let Overhead {
        bare,
        same,
        ours,
        call,
        ratio,
        same_ratio,
        call_ratio,
        cpu_micros,
    } = overhead;
    println!(
        "overhead (40 interleaved rounds of 200 calls, medians): StoreAdmin {ours:.0} calls/s vs bare reqwest+serde {bare:.0} calls/s: ratio {ratio:.3} (target >= 0.97)"
    );
    println!(
        "overhead, bare sending the generated request byte for byte: {same:.0} calls/s: ratio {same_ratio:.3}"
    );
    println!(
        "overhead, StoreAdmin's call() (the runtime decodes the bytes it read): {call:.0} calls/s: ratio {call_ratio:.3} (target >= 0.97)"
    );
    if let Some([bare_cpu, same_cpu, ours_cpu, call_cpu]) = cpu_micros {
        println!(
            "overhead, client thread CPU per call (means): StoreAdmin {ours_cpu:.1} us, bare {bare_cpu:.1} us, bare with the generated request {same_cpu:.1} us: ratio {:.3}, StoreAdmin's own {:+.1} us; call() {call_cpu:.1} us, its own {:+.1} us",
            bare_cpu / ours_cpu,
            ours_cpu - same_cpu,
            call_cpu - same_cpu
        );
    }
}

fn main() {
    // `cargo bench -p store-admin --bench client -- undecodable`: that figure alone.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "undecodable") {
        undecodable_export_ratio();
        return;
    }
    // `cargo bench -p store-admin --bench client -- interleaved`: the interleaved overhead alone.
    if args.iter().any(|arg| arg == "interleaved") {
        print_overhead(interleaved_overhead_ratio());
        return;
    }
    // `cargo bench -p store-admin --bench client -- drift`: that figure alone.
    if args.iter().any(|arg| arg == "drift") {
        println!(
            "drift counting (30 interleaved rounds of 200 calls, median): on vs off ratio {:.3} (target >= 0.95)",
            drift_overhead_ratio()
        );
        return;
    }
    if let Some(at) = args.iter().position(|arg| arg == "profile") {
        let side = args.get(at + 1).map_or("store_admin", String::as_str);
        let calls = args
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .unwrap_or(2000);
        profile(side, calls);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
    println!("\n== ratios (same run) ==");
    match (
        mean_seconds("overhead", "bare_reqwest_serde"),
        mean_seconds("overhead", "store_admin"),
    ) {
        (Some(bare), Some(ours)) => println!(
            "overhead (criterion means): StoreAdmin {:.0} calls/s vs bare reqwest+serde {:.0} calls/s: ratio {:.3}",
            1.0 / ours,
            1.0 / bare,
            bare / ours
        ),
        _ => println!("overhead: criterion estimates not found (run without a filter)"),
    }
    print_overhead(interleaved_overhead_ratio());
    println!(
        "overhead, issue 12's first method (one shared runtime, 20 rounds of 200 calls, bare then StoreAdmin, median): ratio {:.3}",
        shared_runtime_overhead_ratio()
    );
    match (
        mean_seconds("export", "sequential"),
        mean_seconds("export", "concurrent_10"),
    ) {
        (Some(seq), Some(conc)) => println!(
            "export: sequential {seq:.2}s vs concurrent(10) {conc:.2}s: {:.1}x faster (target >= 6)",
            seq / conc
        ),
        _ => println!("export: estimates not found (run without a filter)"),
    }
    undecodable_export_ratio();
    println!(
        "drift counting (30 interleaved rounds of 200 calls, median): on vs off ratio {:.3} (target >= 0.95)",
        drift_overhead_ratio()
    );
}
