//! No answer crashes a decoder. Every operation's decoders (the facade's `DECODERS`: its success,
//! error and request bodies, which `store-admin decode` and the mock's drift check read, of the
//! same types the client decodes) read hostile answers on a thread with a 2 MiB stack, a tokio
//! worker's: nesting at the bound, past it, 1,000 and 100,000 deep, huge numbers, long strings and
//! wrong types at every level of a legitimate answer. Each answers `Ok` or `Err`; none panics or
//! aborts, and a body nested past [`MAX_DEPTH`] is refused naming the depth and the bound.
//!
//! (A module of the `samples` test binary, which lends it the samples and their types.)

use rand::{Rng, SeedableRng};
use serde_json::Value;
use store_admin_client::MAX_DEPTH;
use store_admin_client::decoders::{DECODERS, DecodeFn};

/// A tokio worker's stack (and the default of `std::thread`).
const WORKER_STACK: usize = 2 << 20;

/// Runs `f` on a thread with a worker's stack: a stack overflow there aborts the test binary.
fn on_worker_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(WORKER_STACK)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no decoder panics")
}

/// Every decode function of the table, named `operation.success|error|request`.
fn every_decode() -> Vec<(String, DecodeFn)> {
    let mut out = Vec::new();
    for decoder in DECODERS {
        out.push((format!("{}.success", decoder.operation_id), decoder.success));
        out.push((format!("{}.error", decoder.operation_id), decoder.error));
        if let Some(request) = decoder.request {
            out.push((format!("{}.request", decoder.operation_id), request));
        }
    }
    out
}

/// Nesting shapes `depth` levels deep (the whole body), with `leaf` at the bottom.
fn nestings(depth: usize, leaf: &str) -> Vec<String> {
    let inner = |open: &str, close: &str, levels: usize| {
        format!("{}{leaf}{}", open.repeat(levels), close.repeat(levels))
    };
    let below = depth.saturating_sub(1);
    let below_two = depth.saturating_sub(2);
    vec![
        inner("[", "]", depth),
        inner("{\"data\":", "}", depth),
        format!(
            "{}{}{}",
            "[".repeat(depth % 2),
            inner("[{\"a\":", "}]", depth / 2),
            "]".repeat(depth % 2)
        ),
        format!("{{\"data\":{}}}", inner("[", "]", below)),
        format!("{{\"data\":{}}}", inner("{\"id\":", "}", below)),
        format!(
            "{{\"status\":200,\"success\":true,\"data\":{{\"id\":1,\"x\":{}}}}}",
            inner("[", "]", below_two)
        ),
        format!(
            "{{\"status\":200,\"success\":true,\"data\":[{}]}}",
            inner("{\"options\":", "}", below_two)
        ),
        format!(
            "{{\"status\":422,\"success\":false,\"error\":{{\"code\":\"x\",\"fields\":{}}}}}",
            inner("{\"name\":", "}", below_two)
        ),
        format!("{{\"pagination\":{}}}", inner("[", "]", below)),
    ]
}

fn depth_of(text: &str) -> usize {
    fn of(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(of).max().unwrap_or(0),
            Value::Object(fields) => 1 + fields.values().map(of).max().unwrap_or(0),
            _ => 0,
        }
    }
    serde_json::from_str(text)
        .map(|value| of(&value))
        .unwrap_or(0)
}

#[test]
fn the_shapes_are_as_deep_as_they_say() {
    for shape in nestings(MAX_DEPTH, "1") {
        assert_eq!(depth_of(&shape), MAX_DEPTH, "{shape}");
    }
}

/// Every decoder reads every shape nested up to the bound, on a worker's stack, and answers.
#[test]
fn every_decoder_reads_answers_nested_to_the_bound_on_a_worker_stack() {
    let answered = on_worker_stack(|| {
        let mut answered = 0usize;
        for leaf in ["1", "\"x\"", "null", "{}", "[]", "1e400", "true"] {
            let shapes = nestings(MAX_DEPTH, leaf);
            for (_, decode) in every_decode() {
                for shape in &shapes {
                    let _ok_or_err = decode(shape.as_bytes());
                    answered += 1;
                }
            }
        }
        answered
    });
    assert!(answered > 1_000, "{answered}");
}

/// A body nested past the bound is refused by every JSON decoder with the depth and the bound; a
/// download's (any bytes) and a body-less operation's decoders answer as they do for any bytes.
#[test]
fn every_decoder_refuses_answers_nested_past_the_bound_1000_and_100000_deep() {
    on_worker_stack(|| {
        let expected = format!("nested deeper than {MAX_DEPTH} levels");
        for depth in [MAX_DEPTH + 1, 70, 1_000, 100_000] {
            let shapes = nestings(depth, "1");
            for (name, decode) in every_decode() {
                for shape in &shapes {
                    match decode(shape.as_bytes()) {
                        Err(message) if message.contains(&expected) => {}
                        // `bytes` (a download) takes any body; `empty` none.
                        Ok(()) if name == "export_custom_urls.success" => {}
                        Err(message) if message.contains("documents no body") => {}
                        other => panic!("{name} at depth {depth}: {other:?}"),
                    }
                }
            }
        }
    });
}

/// A sample of the service, with the paths of its values.
fn paths(value: &Value, at: Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(at.clone());
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate().take(3) {
                let mut next = at.clone();
                next.push(PathStep::Index(i));
                paths(item, next, out);
            }
        }
        Value::Object(fields) => {
            for (key, item) in fields {
                let mut next = at.clone();
                next.push(PathStep::Key(key.clone()));
                paths(item, next, out);
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn at_mut<'v>(value: &'v mut Value, path: &[PathStep]) -> Option<&'v mut Value> {
    let mut here = value;
    for step in path {
        here = match step {
            PathStep::Key(key) => here.get_mut(key.as_str())?,
            PathStep::Index(i) => here.get_mut(*i)?,
        };
    }
    Some(here)
}

/// What a hostile service puts in place of a value: wrong types, huge numbers, long strings,
/// nesting at and past the bound (as raw JSON text: some are no `serde_json::Value`).
fn hostile_values() -> Vec<String> {
    let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
    vec![
        "null".into(),
        "true".into(),
        "-1".into(),
        "0.5".into(),
        "\"x\"".into(),
        "[]".into(),
        "{}".into(),
        "[1, \"a\", {}]".into(),
        "{\"a\": [null]}".into(),
        "18446744073709551616".into(),
        "-9223372036854775809".into(),
        "123456789012345678901234567890123456789012345678901234567890".into(),
        "1e400".into(),
        "-1e-400".into(),
        format!("\"{}\"", "9".repeat(10_000)),
        format!("\"{}\"", "a".repeat(64 << 10)),
        format!("\"{}\"", "\\u0000\\\"[{".repeat(1_000)),
        deep(MAX_DEPTH / 2),
        deep(1_000),
    ]
}

/// How many of a sample's paths get each hostile value.
const PATHS_PER_SAMPLE: usize = 6;

/// Values of every legitimate answer (a sample of the service, each to the decoders that read
/// it) replaced, at [`PATHS_PER_SAMPLE`] of its levels, by each hostile value: every decoder
/// answers, on a worker's stack.
#[test]
fn wrong_types_huge_numbers_and_long_strings_at_every_level_of_every_sample_never_crash() {
    let decodes = every_decode();
    let mut bases: Vec<(String, Value)> = Vec::new();
    for file in super::sample_files() {
        let text = std::fs::read_to_string(super::samples_dir().join(&file)).expect("sample");
        if let Ok(value) = serde_json::from_str::<Value>(&text) {
            bases.push((file, value));
        }
    }
    assert!(bases.len() > 40, "{}", bases.len());
    let (mutated, readers) = on_worker_stack(move || {
        let hostile = hostile_values();
        let mut rng = rand::rngs::StdRng::seed_from_u64(37);
        let mut mutated = 0usize;
        let mut readers = 0usize;
        for (file, base) in &bases {
            let text = base.to_string();
            // The decoders that read this sample as it is: the ones to attack with it.
            let reading: Vec<&(String, DecodeFn)> = decodes
                .iter()
                .filter(|(_, decode)| decode(text.as_bytes()).is_ok())
                .collect();
            readers += reading.len();
            let mut every = Vec::new();
            paths(base, Vec::new(), &mut every);
            // A bounded sample of the paths (the root, then others picked by the seeded
            // generator), so that the test runs in seconds in a debug build: every level of a
            // big sample times every hostile value times its readers took half an hour.
            let mut picked: Vec<&Vec<PathStep>> = every.iter().take(1).collect();
            while picked.len() < PATHS_PER_SAMPLE.min(every.len()) {
                picked.push(&every[rng.random_range(0..every.len())]);
            }
            for path in picked {
                for value in &hostile {
                    let mut copy = base.clone();
                    let Some(slot) = at_mut(&mut copy, path) else {
                        continue;
                    };
                    *slot = Value::String("\u{1}HOSTILE\u{1}".into());
                    let body = copy.to_string().replace("\"\\u0001HOSTILE\\u0001\"", value);
                    // Its readers, and a few other decoders picked at random.
                    for (name, decode) in reading
                        .iter()
                        .copied()
                        .chain((0..2).map(|_| &decodes[rng.random_range(0..decodes.len())]))
                    {
                        let result = decode(body.as_bytes());
                        if value.starts_with("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[") {
                            assert!(
                                matches!(&result, Err(m) if m.contains("nested deeper")
                                    || m.contains("documents no body"))
                                    || name == "export_custom_urls.success",
                                "{file} {name}: {result:?}"
                            );
                        }
                    }
                    mutated += 1;
                }
            }
        }
        (mutated, readers)
    });
    assert!(mutated > 40 * PATHS_PER_SAMPLE, "{mutated}");
    assert!(readers > 100, "{readers}");
}

/// Every decoder over answers nested exactly to the bound: the nesting shapes, and every sample
/// with a value at each of its paths replaced by nesting that fills the bound (so that the
/// nesting goes through each field's own decoder). Returns how many decodes ran.
fn decode_everything_at(levels: usize) -> usize {
    let decodes = every_decode();
    let mut ran = 0;
    let verbose = std::env::var_os("DEPTH_PROBE_VERBOSE").is_some();
    for leaf in ["1", "\"x\""] {
        for shape in nestings(levels, leaf) {
            for (name, decode) in &decodes {
                if verbose {
                    eprintln!("{name} {}", &shape[..shape.len().min(40)]);
                }
                let _ok_or_err = decode(shape.as_bytes());
                ran += 1;
            }
        }
    }
    for file in super::sample_files() {
        let text = std::fs::read_to_string(super::samples_dir().join(&file)).expect("sample");
        let Ok(base) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let reading: Vec<&(String, DecodeFn)> = decodes
            .iter()
            .filter(|(_, decode)| decode(text.as_bytes()).is_ok())
            .collect();
        let mut every = Vec::new();
        paths(&base, Vec::new(), &mut every);
        for path in every
            .iter()
            .filter(|path| !path.is_empty() && path.len() < levels)
        {
            let mut copy = base.clone();
            let Some(slot) = at_mut(&mut copy, path) else {
                continue;
            };
            *slot = Value::String("\u{1}HOSTILE\u{1}".into());
            let fill = levels - path.len();
            let deep = format!("{}{}", "[".repeat(fill), "]".repeat(fill));
            let body = copy.to_string().replace("\"\\u0001HOSTILE\\u0001\"", &deep);
            for (name, decode) in &reading {
                if verbose {
                    eprintln!("{name} {file} {path:?}");
                }
                let _ok_or_err = decode(body.as_bytes());
                ran += 1;
            }
        }
    }
    ran
}

/// The child of [`the_stack_every_decoder_needs_at_the_bound`]: decodes everything at the bound on
/// a thread of `DEPTH_PROBE_STACK` bytes (a stack overflow aborts it).
#[test]
#[ignore = "run by the_stack_every_decoder_needs_at_the_bound, in a process of its own"]
fn probe_at_the_bound() {
    let Some(stack) = std::env::var("DEPTH_PROBE_STACK")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    else {
        return;
    };
    let levels = std::env::var("DEPTH_PROBE_LEVELS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(MAX_DEPTH);
    let ran = std::thread::Builder::new()
        .stack_size(stack)
        .spawn(move || decode_everything_at(levels))
        .expect("a thread")
        .join()
        .expect("no panic");
    assert!(ran > 1_000);
}

/// The measure behind [`MAX_DEPTH`]: the smallest stack on which every decoder reads every answer
/// nested to the bound, found by halving in child processes (a stack overflow aborts one).
/// `cargo test -p store-admin-client --test samples [--release] -- --ignored --nocapture
/// the_stack_every_decoder_needs_at_the_bound`.
#[test]
#[ignore = "a measure: spawns about ten processes"]
fn the_stack_every_decoder_needs_at_the_bound() {
    let survives = |stack: usize, levels: usize| {
        std::process::Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "--ignored",
                "--exact",
                "depth::probe_at_the_bound",
                "--test-threads=1",
            ])
            .env("DEPTH_PROBE_STACK", stack.to_string())
            .env("DEPTH_PROBE_LEVELS", levels.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .expect("runs")
            .success()
    };
    assert!(
        survives(WORKER_STACK, MAX_DEPTH),
        "every decoder fits a worker's stack at the bound"
    );
    let needed = |levels: usize| {
        let (mut fails, mut fits) = (8 << 10, WORKER_STACK);
        while fits - fails > 2 << 10 {
            let middle = (fails + fits) / 2;
            if survives(middle, levels) {
                fits = middle;
            } else {
                fails = middle;
            }
        }
        fits
    };
    let (half, whole) = (needed(MAX_DEPTH / 2), needed(MAX_DEPTH));
    let per_level = whole.saturating_sub(half) as f64 / (MAX_DEPTH - MAX_DEPTH / 2) as f64;
    println!(
        "MAX_DEPTH {MAX_DEPTH}: every decoder reads answers nested {} deep in {} KiB of stack and \
         {MAX_DEPTH} deep in {} KiB ({:.1}x under 2 MiB); about {:.1} KiB a level, so 2 MiB would \
         last to about {:.0} levels",
        MAX_DEPTH / 2,
        half >> 10,
        whole >> 10,
        WORKER_STACK as f64 / whole as f64,
        per_level / 1024.0,
        MAX_DEPTH as f64 + (WORKER_STACK - whole) as f64 / per_level.max(1.0)
    );
}
