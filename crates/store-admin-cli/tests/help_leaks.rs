//! The help of every command speaks the user's words: no operationId (but the command's own
//! `Operation:` line, which names it with its method and path), no schema (type) name of the
//! document, no shared type's description in place of a field's, no note written for
//! developers (the reasons of the document's `x-assumed` elements, read from the document so
//! that new ones are found too), and no value list said twice in one flag's help.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use store_admin_cli::cli::command;

use crate::common::{run, store_admin};

/// Phrases of notes for developers that help for users never holds, whatever the document
/// says next (lower case).
const DEVELOPER_PHRASES: &[&str] = &[
    "avoid binary floating point",
    "open string",
    "enum variant",
    "the schema declares",
    "example sends",
    "examples send",
    "code generator",
    "generated code",
    "generated client",
    "progenitor",
    "typify",
    "x-assumed",
    "assumed",
];

/// Words that mark a sentence of an `x-assumed` element's description as its reason (what was
/// assumed, and why), not what the value is.
const REASON_MARKERS: &[&str] = &[
    "assum",
    "documentation",
    "documented",
    "schema",
    "example sends",
    "examples send",
    "its example",
    "declares",
    "declared",
    "generator",
    "generated",
];

/// What the document calls things that help must not: its operationIds, its schemas' names,
/// and sentences meant for developers.
struct Vocabulary {
    operation_ids: BTreeSet<String>,
    types: BTreeSet<String>,
    /// Lower-case sentences, whitespace folded.
    sentences: BTreeSet<String>,
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn sentences(text: &str) -> Vec<String> {
    fold(text)
        .split(". ")
        .map(|s| s.trim().trim_end_matches('.').to_owned())
        .filter(|s| s.len() >= 25)
        .collect()
}

impl Vocabulary {
    fn load() -> Self {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/store-admin.yaml"
        );
        let text = std::fs::read_to_string(path).expect("the OpenAPI document");
        let doc = store_admin_mock::read_yaml(&text).expect("the document is YAML");
        let mut operation_ids = BTreeSet::new();
        for item in doc["paths"].as_object().expect("paths").values() {
            for op in item.as_object().into_iter().flat_map(|o| o.values()) {
                if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                    operation_ids.insert(id.to_owned());
                }
            }
        }
        let schemas = doc["components"]["schemas"].as_object().expect("schemas");
        let types: BTreeSet<String> = schemas.keys().cloned().collect();
        let mut found = BTreeSet::new();
        // A shared scalar type's description says what the type is (the money boilerplate):
        // never a field's help.
        for schema in schemas.values() {
            let members = schema.get("anyOf").or_else(|| schema.get("oneOf"));
            let scalar = members.and_then(Value::as_array).is_some_and(|m| {
                m.iter().all(|m| {
                    matches!(
                        m.get("type").and_then(Value::as_str),
                        Some("string" | "number" | "integer" | "boolean")
                    )
                })
            });
            if scalar && let Some(description) = schema.get("description").and_then(Value::as_str) {
                found.extend(sentences(description));
            }
        }
        // The reasons of every `x-assumed` element.
        fn walk(node: &Value, found: &mut BTreeSet<String>) {
            match node {
                Value::Object(map) => {
                    if map
                        .get("x-assumed")
                        .is_some_and(|a| a != &Value::Bool(false))
                        && let Some(description) = map.get("description").and_then(Value::as_str)
                    {
                        found.extend(
                            sentences(description)
                                .into_iter()
                                .filter(|s| REASON_MARKERS.iter().any(|m| s.contains(m))),
                        );
                    }
                    map.values().for_each(|v| walk(v, found));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
                _ => {}
            }
        }
        walk(&doc, &mut found);
        Vocabulary {
            operation_ids,
            types,
            sentences: found,
        }
    }

    /// The leaks of one command's whole help text.
    fn leaks(&self, help: &str) -> Vec<String> {
        let mut out = Vec::new();
        // The command's own operation, with its method and path, is named on purpose.
        let text: String = help
            .lines()
            .filter(|l| !l.starts_with("Operation: "))
            .collect::<Vec<_>>()
            .join("\n");
        let words: BTreeSet<&str> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for word in &words {
            if word.contains('_') && self.operation_ids.contains(*word) {
                out.push(format!("operationId `{word}`"));
            }
            let capitals = word.chars().filter(char::is_ascii_uppercase).count();
            let lower = word.chars().any(|c| c.is_ascii_lowercase());
            if capitals >= 2 && lower && self.types.contains(*word) {
                out.push(format!("type name `{word}`"));
            }
        }
        for quoted in text.split('`').skip(1).step_by(2) {
            let head = quoted.split(['.', '[', ' ']).next().unwrap_or_default();
            if self.types.contains(head) {
                out.push(format!("type name `{quoted}`"));
            }
        }
        let folded = fold(&text);
        for phrase in DEVELOPER_PHRASES {
            if contains_words(&folded, phrase) {
                out.push(format!("developer note {phrase:?}"));
            }
        }
        for sentence in &self.sentences {
            if folded.contains(sentence.as_str()) {
                out.push(format!("document note {sentence:?}"));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

/// Whether `text` holds `phrase` as whole words (`generated code`, not `generated codes`).
fn contains_words(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + phrase.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The values in backticks of a text.
fn quoted(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// The values of a `[known values: a, b (others accepted)]` list of a help text.
fn known_values(text: &str) -> BTreeSet<String> {
    let Some((_, rest)) = text.split_once("[known values: ") else {
        return BTreeSet::new();
    };
    let list = rest.split(']').next().unwrap_or_default();
    list.trim_end_matches(" (others accepted)")
        .split(", ")
        .map(str::to_owned)
        .collect()
}

/// A value list said twice in one flag's help: the description lists three or more values of
/// the set that clap's `[possible values: ...]` or a `[known values: ...]` list repeats.
fn repeated_lists(cmd: &clap::Command) -> Vec<String> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let help = arg
            .get_long_help()
            .or_else(|| arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let described = quoted(&help);
        let mut lists = vec![known_values(&help)];
        if !arg.is_hide_possible_values_set() {
            lists.push(
                arg.get_possible_values()
                    .iter()
                    .map(|v| v.get_name().to_owned())
                    .collect(),
            );
        }
        for list in lists {
            let twice = list.intersection(&described).count();
            if twice >= 3 {
                out.push(format!(
                    "--{} lists {twice} values twice",
                    arg.get_long().unwrap_or(arg.get_id().as_str())
                ));
            }
        }
    }
    out
}

/// Every command of the tree with its words after `store-admin`, the root first.
fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
    out.push((path.to_owned(), cmd.clone()));
    for sub in cmd.get_subcommands() {
        let words = format!("{path} {}", sub.get_name()).trim().to_owned();
        walk(sub, &words, out);
    }
}

#[test]
fn no_command_s_help_leaks_the_document_s_words_for_developers() {
    let vocabulary = Vocabulary::load();
    assert!(
        vocabulary.operation_ids.len() > 100
            && vocabulary.types.len() > 100
            && !vocabulary.sentences.is_empty(),
        "the document's vocabulary is read"
    );
    let mut root = command();
    root.build();
    let mut commands = Vec::new();
    walk(&root, "", &mut commands);
    let mut leaking: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, cmd) in &commands {
        // `decode` and `drift` take an operationId as their argument: there it is the user's word.
        let takes_operation = cmd.get_arguments().any(|a| {
            a.get_value_names()
                .is_some_and(|names| names.iter().any(|n| n.as_str() == "OPERATION"))
        });
        let mut cmd = cmd.clone();
        let help = cmd.render_long_help().to_string();
        let mut leaks = vocabulary.leaks(&help);
        if takes_operation {
            leaks.retain(|l| !l.starts_with("operationId"));
        }
        leaks.extend(repeated_lists(&cmd));
        if !leaks.is_empty() {
            leaking.insert(format!("store-admin {path}").trim().to_owned(), leaks);
        }
    }
    let report: Vec<String> = leaking
        .iter()
        .map(|(path, leaks)| format!("{path}: {}", leaks.join("; ")))
        .collect();
    eprintln!(
        "help leaks: {} of {} commands\n{}",
        leaking.len(),
        commands.len(),
        report.join("\n")
    );
    assert!(
        leaking.is_empty(),
        "{} of {} commands' help leak:\n{}",
        leaking.len(),
        commands.len(),
        report.join("\n")
    );
}

#[test]
fn the_leak_scan_finds_each_kind_of_leak() {
    // The scan itself can fail: each kind of leak, written as it leaked before.
    let vocabulary = Vocabulary::load();
    for (help, kind) in [
        (
            "Only statuses listed by `list_order_statuses`.",
            "operationId",
        ),
        (
            "Only orders paid so (see `OrderPaymentMethod`).",
            "type name",
        ),
        ("The rule, see `Webhook.rule`.", "type name"),
        (
            "A decimal value that the service sends either as a JSON number (`127`, `13.5`) or \
             as a decimal string (`\"127.00\"`). Parse the string form as a decimal; avoid binary \
             floating point for money.",
            "developer note",
        ),
        (
            "Comparison operator. (An open string: the operators cannot be enum variant names.)",
            "developer note",
        ),
        (
            "Id of the other option. The schema declares a string, its example sends an integer.",
            "developer note",
        ),
        (
            "One abandoned cart. The documentation names the path parameter `cart-id` and types \
             it as a string; cart ids are numbers (`data.id`), so it is an integer here.",
            "document note",
        ),
    ] {
        let leaks = vocabulary.leaks(help);
        assert!(
            leaks.iter().any(|l| l.starts_with(kind)),
            "{help:?}: {leaks:?}"
        );
    }
    for fine in [
        "Operation: list_orders (GET /orders)\nList orders",
        "The suffix of the generated codes (for example the number of boxes).",
    ] {
        assert!(vocabulary.leaks(fine).is_empty(), "{fine}");
    }
    let twice = clap::Command::new("x").arg(
        clap::Arg::new("event")
            .long("event")
            .help("One of `a.b`, `c.d`, `e.f`. [known values: a.b, c.d, e.f (others accepted)]"),
    );
    assert_eq!(repeated_lists(&twice).len(), 1);
}

#[test]
fn a_command_s_help_shows_its_operation_s_description_with_the_commands_it_names() {
    let mut cmd = store_admin();
    cmd.args(["orders", "create-draft", "--help"]);
    let (stdout, _) = run(cmd, 0);
    assert!(stdout.contains("`order-items create`"), "{stdout}");
    assert!(!stdout.contains("create_order_item"), "{stdout}");
}

#[test]
fn a_body_without_flags_says_how_to_write_each_of_its_shapes() {
    let mut cmd = store_admin();
    cmd.args(["affiliates", "create", "--help"]);
    let (stdout, _) = run(cmd, 0);
    assert!(stdout.contains("--body FILE"), "{stdout}");
    let shapes: Vec<&str> = stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{') && l.ends_with('}'))
        .collect();
    assert!(shapes.len() >= 2, "one shape per variant:\n{stdout}");
    assert!(shapes.iter().all(|s| s.contains("\": ")), "{stdout}");
}

#[test]
fn a_money_flag_says_what_it_is_and_its_rule_in_short() {
    let mut cmd = store_admin();
    cmd.args(["products", "create", "--help"]);
    let (stdout, _) = run(cmd, 0);
    let price = stdout
        .split("--price <NUMBER>")
        .nth(1)
        .and_then(|rest| rest.split("\n      --").next())
        .unwrap_or_else(|| panic!("no --price:\n{stdout}"));
    assert!(price.contains("e.g. 149.50"), "{price}");
    assert!(!price.contains("JSON number"), "{price}");
}
