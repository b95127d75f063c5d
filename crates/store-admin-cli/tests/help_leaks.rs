//! The help of every command speaks the user's words: no operationId (but the command's own
//! `Operation:` line, which names it with its method and path), no type name (of the document's
//! schemas and of the generated code), no shared type's description in place of a field's, no
//! note written for developers, and no value list said twice in one flag's help.
//!
//! What is a note for developers is read from the document's structure, not from its words:
//! every element marked `x-assumed` holds, in its description, what was assumed and why. Each
//! piece of such a description (a clause of five words or more) that reaches a command's help
//! must be one that a person reviewed as the user's words and listed in
//! `tests/fixtures/help_assumed_text.txt`; any other is a leak, however it is worded (a reason
//! need not say "documented" or "assumed"). Phrases only developers use are leaks too, wherever
//! they come from.

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
    "generated clients",
    "progenitor",
    "typify",
    "x-assumed",
    "assumed",
    "path item",
];

/// The pieces of `x-assumed` descriptions that reach help and were reviewed as the user's words
/// (one a line, lower case, whitespace folded).
const REVIEWED: &str = include_str!("fixtures/help_assumed_text.txt");

/// Fewest words of a piece of an `x-assumed` description that the scan looks for (shorter
/// ones, "the branch's position", are too common to tell anything).
const PIECE_WORDS: usize = 5;

/// What the document calls things that help must not: its operationIds, its schemas' names,
/// and sentences meant for developers.
struct Vocabulary {
    operation_ids: BTreeSet<String>,
    /// The schemas' names and the generated code's type names.
    types: BTreeSet<String>,
    /// The descriptions of the shared scalar types: lower-case sentences, whitespace folded.
    sentences: BTreeSet<String>,
    /// The pieces of every `x-assumed` element's description ([`pieces`]).
    assumed: BTreeSet<String>,
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The pieces of a description: its clauses, split at `.`, `;`, `:` and `,` before a space and
/// at parentheses, lower case, of [`PIECE_WORDS`] words or more.
fn pieces(text: &str) -> Vec<String> {
    let text = fold(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut piece = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let ends = matches!(c, '(' | ')')
            || (matches!(c, '.' | ';' | ':' | ',')
                && chars.get(i + 1).is_none_or(|n| n.is_whitespace()));
        if ends {
            out.push(std::mem::take(&mut piece));
        } else {
            piece.push(c);
        }
    }
    out.push(piece);
    out.into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| p.split_whitespace().count() >= PIECE_WORDS)
        .collect()
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
        let mut types: BTreeSet<String> = schemas.keys().cloned().collect();
        // The generated code's type names too (`SecurityStrategyInner`, inline types).
        let crates = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        for entry in std::fs::read_dir(crates).expect("crates/") {
            let dir = entry.expect("an entry").path();
            if !dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("store-admin-client"))
            {
                continue;
            }
            for file in std::fs::read_dir(dir.join("src")).expect("src/") {
                let file = file.expect("an entry").path();
                if !file
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("generated"))
                {
                    continue;
                }
                let code = std::fs::read_to_string(&file).expect("readable");
                for kind in ["pub struct ", "pub enum "] {
                    types.extend(code.split(kind).skip(1).filter_map(|rest| {
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        (!name.is_empty()).then_some(name)
                    }));
                }
            }
        }
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
        // Every piece of every `x-assumed` element's description, whatever its words.
        fn walk(node: &Value, found: &mut BTreeSet<String>) {
            match node {
                Value::Object(map) => {
                    if map
                        .get("x-assumed")
                        .is_some_and(|a| a != &Value::Bool(false))
                        && let Some(description) = map.get("description").and_then(Value::as_str)
                    {
                        found.extend(pieces(description));
                    }
                    map.values().for_each(|v| walk(v, found));
                }
                Value::Array(items) => items.iter().for_each(|v| walk(v, found)),
                _ => {}
            }
        }
        let mut assumed = BTreeSet::new();
        walk(&doc, &mut assumed);
        Vocabulary {
            operation_ids,
            types,
            sentences: found,
            assumed,
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
        let reviewed = reviewed();
        for piece in self.assumed_shown(&folded) {
            if !reviewed.contains(piece.as_str()) {
                out.push(format!("assumption {piece:?}"));
            }
        }
        out.sort();
        out.dedup();
        out
    }
}

impl Vocabulary {
    /// The pieces of `x-assumed` descriptions that a folded help text holds.
    fn assumed_shown<'v>(&'v self, folded: &str) -> Vec<&'v String> {
        self.assumed
            .iter()
            .filter(|piece| folded.contains(piece.as_str()))
            .collect()
    }
}

/// The reviewed pieces ([`REVIEWED`]).
fn reviewed() -> BTreeSet<&'static str> {
    REVIEWED
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
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
            && !vocabulary.sentences.is_empty()
            && vocabulary.assumed.len() > 100,
        "the document's vocabulary is read"
    );
    let mut root = command();
    root.build();
    let mut commands = Vec::new();
    walk(&root, "", &mut commands);
    let mut leaking: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut shown: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, cmd) in &commands {
        // `decode` and `drift` take an operationId as their argument: there it is the user's word.
        let takes_operation = cmd.get_arguments().any(|a| {
            a.get_value_names()
                .is_some_and(|names| names.iter().any(|n| n.as_str() == "OPERATION"))
        });
        let mut cmd = cmd.clone();
        let help = cmd.render_long_help().to_string();
        for piece in vocabulary.assumed_shown(&fold(&help)) {
            shown.entry(piece.clone()).or_default().insert(path.clone());
        }
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
    let showing: BTreeSet<&String> = shown.values().flatten().collect();
    eprintln!(
        "help leaks: {} of {} commands\n{}\nx-assumed text in help (reviewed): {} pieces in {} \
         commands",
        leaking.len(),
        commands.len(),
        report.join("\n"),
        shown.len(),
        showing.len(),
    );
    // The reviewed list says what is shown, no more: a piece that no help shows any longer is
    // taken out of it.
    let stale: Vec<&str> = reviewed()
        .into_iter()
        .filter(|piece| !shown.contains_key(*piece))
        .collect();
    assert!(
        stale.is_empty(),
        "reviewed pieces no help shows (take them out of tests/fixtures/help_assumed_text.txt):\n{}",
        stale.join("\n")
    );
    assert!(
        leaking.is_empty(),
        "{} of {} commands' help leak (an `assumption` that is the user's words goes into \
         tests/fixtures/help_assumed_text.txt, once reviewed):\n{}",
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
            "assumption",
        ),
        // A reason worded without any word that marks one: it is a piece of an `x-assumed`
        // description that nobody reviewed as the user's words.
        (
            "This path is served elsewhere, and clients that ignore path-level servers must call \
             that URL themselves.",
            "assumption",
        ),
        (
            "An `IntegerOrString` or `SecurityStrategyInner`.",
            "type name",
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
