//! The command tree against the document: every operation has a command, every parameter and
//! body field a flag, the names of earlier versions still resolve; and snapshots of the help
//! text.

use std::collections::BTreeSet;

use serde_json::Value;
use store_admin::OPERATIONS;
use store_admin_cli::cli::{OPERATION_COMMANDS, command};

use crate::common::{run, store_admin};

fn find(words: &str) -> clap::Command {
    let mut current = command();
    for word in words.split(' ') {
        current = current
            .find_subcommand(word)
            .unwrap_or_else(|| panic!("no command `{word}` in `{words}`"))
            .clone();
    }
    current
}

fn arg_ids(cmd: &clap::Command) -> BTreeSet<String> {
    cmd.get_arguments()
        .map(|a| a.get_id().as_str().to_string())
        .collect()
}

#[test]
fn the_command_tree_passes_clap_s_consistency_checks() {
    // Duplicate flags, bad defaults, conflicting ids...: clap checks these only when a command is
    // built, so check every command here rather than when someone first runs it.
    command().debug_assert();
}

#[test]
fn every_operation_of_the_document_has_exactly_one_command() {
    let documented: BTreeSet<&str> = OPERATIONS.iter().map(|op| op.operation_id).collect();
    let mapped: Vec<&str> = OPERATION_COMMANDS.iter().map(|(_, id)| *id).collect();
    let unique: BTreeSet<&str> = mapped.iter().copied().collect();
    assert_eq!(unique.len(), mapped.len(), "an operation is mapped twice");
    assert_eq!(
        documented, unique,
        "operations without a command, or commands without an operation"
    );
    for (path, _) in OPERATION_COMMANDS {
        let cmd = find(path);
        assert!(
            cmd.get_subcommands().next().is_none(),
            "`{path}` is not a leaf command"
        );
    }
}

#[test]
fn every_operation_command_prints_its_help() {
    // In process: one clap parse per operation of the document.
    for meta in OPERATIONS {
        let path = store_admin_cli::cli::command_for(meta.operation_id)
            .unwrap_or_else(|| panic!("no command for {}", meta.operation_id));
        let mut args = vec!["store-admin"];
        args.extend(path.split(' '));
        args.push("--help");
        let error = match command().try_get_matches_from(&args) {
            Ok(_) => panic!("`{path} --help` parsed as a call"),
            Err(error) => error,
        };
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::DisplayHelp,
            "`{path} --help`: {error}"
        );
        let help = error.to_string();
        assert!(help.contains(meta.summary), "`{path} --help`:\n{help}");
        assert!(help.contains(meta.operation_id), "`{path} --help`:\n{help}");
    }
}

#[test]
fn earlier_command_paths_still_reach_their_operation() {
    for (old, operation_id) in store_admin_cli::legacy::LEGACY_COMMANDS {
        let mut args = vec!["store-admin"];
        args.extend(old.split(' '));
        args.push("--help");
        let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        let args = store_admin_cli::legacy::rewrite(args, &command());
        let error = command()
            .try_get_matches_from(&args)
            .err()
            .unwrap_or_else(|| panic!("`{old} --help` parsed as a call"));
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::DisplayHelp,
            "`{old}`: {error}"
        );
        assert!(
            error.to_string().contains(operation_id),
            "`{old}` does not reach {operation_id}"
        );
    }
}

#[test]
fn operation_commands_take_their_summary_and_scopes_from_the_document() {
    for (path, operation_id) in OPERATION_COMMANDS {
        let meta = store_admin::OperationMeta::find(operation_id).unwrap();
        let cmd = find(path);
        let about = cmd.get_about().map(|a| a.to_string()).unwrap_or_default();
        assert!(about.starts_with(meta.summary), "`{path}`: {about:?}");
        // Shown right after what the command does, before its flags.
        let details = cmd
            .get_before_help()
            .map(|a| a.to_string())
            .unwrap_or_default();
        assert!(details.contains(operation_id), "`{path}`: {details:?}");
        for scope in meta.scopes {
            assert!(details.contains(scope), "`{path}` does not name {scope}");
        }
    }
}

/// The flag id of a parameter name, as the generator makes it: `categories[]` -> `categories`,
/// `ship_from[city_id]` -> `ship_from_city_id`, `sortBy` -> `sort_by`.
fn flag_id(name: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        } else {
            if !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out.trim_matches('_').to_string()
}

struct Document(Value);

/// What the document says an operation takes.
struct DocumentedOperation {
    id: String,
    /// Path and query parameter names.
    params: Vec<String>,
    /// Body properties that are strings, numbers or booleans.
    scalars: Vec<String>,
    /// Other body properties (objects, arrays, unions).
    others: Vec<String>,
}

impl Document {
    fn load() -> Self {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../openapi/store-admin.yaml"
        );
        let text = std::fs::read_to_string(path).expect("the OpenAPI document");
        Document(store_admin_mock::read_yaml(&text).expect("the document is YAML"))
    }

    fn resolve<'a>(&'a self, value: &'a Value) -> &'a Value {
        match value.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let pointer = reference.trim_start_matches('#');
                self.resolve(
                    self.0
                        .pointer(pointer)
                        .unwrap_or_else(|| panic!("{reference}")),
                )
            }
            None => value,
        }
    }

    fn is_scalar(&self, schema: &Value) -> bool {
        let schema = self.resolve(schema);
        matches!(
            schema.get("type").and_then(Value::as_str),
            Some("string" | "integer" | "number" | "boolean")
        )
    }

    fn operations(&self) -> Vec<DocumentedOperation> {
        let mut out = Vec::new();
        let paths = self.0["paths"].as_object().expect("paths");
        for item in paths.values() {
            let shared: Vec<&Value> = item
                .get("parameters")
                .and_then(Value::as_array)
                .map(|a| a.iter().collect())
                .unwrap_or_default();
            for method in ["get", "post", "put", "patch", "delete"] {
                let Some(op) = item.get(method) else { continue };
                let id = op["operationId"].as_str().expect("operationId").to_string();
                let mut params: Vec<String> = shared
                    .iter()
                    .copied()
                    .chain(
                        op.get("parameters")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten(),
                    )
                    .map(|p| self.resolve(p))
                    .filter(|p| matches!(p["in"].as_str(), Some("path" | "query")))
                    .map(|p| flag_id(p["name"].as_str().unwrap()))
                    .collect();
                params.sort();
                params.dedup();
                let (mut scalars, mut others) = (Vec::new(), Vec::new());
                if let Some(body) = op.pointer("/requestBody/content/application~1json/schema") {
                    let body = self.resolve(body);
                    for (name, schema) in body["properties"].as_object().into_iter().flatten() {
                        if self.is_scalar(schema) {
                            scalars.push(name.clone());
                        } else {
                            others.push(name.clone());
                        }
                    }
                }
                out.push(DocumentedOperation {
                    id,
                    params,
                    scalars,
                    others,
                });
            }
        }
        out
    }
}

/// Body properties that are not scalars but have a hand-written flag (`src/extras.rs`): the
/// operation, the property and the flag's id.
const STRUCTURED_FLAGS: &[(&str, &str, &str)] = &[
    ("create_product_option", "values", "values"),
    ("add_languages", "locales", "locales"),
    ("subscribe_webhook", "headers", "headers"),
    ("update_webhook", "headers", "headers"),
    (
        "subscribe_webhook",
        "security_strategy",
        "security_strategy",
    ),
    ("update_webhook", "security_strategy", "security_strategy"),
    ("create_shipment", "service_types", "service_types"),
    ("create_category", "show_in", "show_in_app"),
];

#[test]
fn every_parameter_and_body_field_of_the_document_has_a_flag() {
    let document = Document::load();
    let operations = document.operations();
    assert_eq!(
        operations.len(),
        OPERATIONS.len(),
        "the document and OPERATIONS disagree"
    );
    for DocumentedOperation {
        id,
        params,
        scalars,
        others,
    } in operations
    {
        let path =
            store_admin_cli::cli::command_for(&id).unwrap_or_else(|| panic!("no command for {id}"));
        let ids = arg_ids(&find(path));
        for param in &params {
            // A name that a global flag takes is prefixed (`--param-output`).
            assert!(
                ids.contains(param) || ids.contains(&format!("param_{param}")),
                "`{path}` has no flag or argument for the parameter `{param}` of {id}"
            );
        }
        for field in &scalars {
            // A body field named like a parameter or a global flag is prefixed (`--body-order-id`).
            let field = flag_id(field);
            // A secret is read from a file (`--secret-file`), never from the command line.
            assert!(
                ids.contains(&field)
                    || ids.contains(&format!("body_{field}"))
                    || ids.contains(&format!("{field}_file")),
                "`{path}` has no flag for the body field `{field}` of {id}"
            );
        }
        if !scalars.is_empty() || !others.is_empty() {
            assert!(ids.contains("body"), "`{path}` takes no --body");
        }
        for field in &others {
            // An array of scalars is a repeated flag of its name; an object or an array of
            // objects a `--FIELD-json` flag; a few have a hand-written flag.
            let flag = flag_id(field);
            let hand_written = STRUCTURED_FLAGS
                .iter()
                .find(|(op, name, _)| *op == id && name == field)
                .map(|(_, _, flag)| flag.to_string());
            let candidates = [
                Some(flag.clone()),
                Some(format!("body_{flag}")),
                Some(format!("{flag}_json")),
                Some(format!("body_{flag}_json")),
                hand_written,
            ];
            assert!(
                candidates.iter().flatten().any(|c| ids.contains(c)),
                "`{path}` has no flag for the body field `{field}` of {id}"
            );
        }
    }
}

fn help(args: &[&str]) -> String {
    let mut cmd = store_admin();
    cmd.args(args).arg("--help");
    let (stdout, stderr) = run(cmd, 0);
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

#[test]
fn help_of_the_root_command() {
    insta::assert_snapshot!(help(&[]));
}

#[test]
fn help_of_each_command_group() {
    // Groups are the document's tags; `cargo xtask`'s `cli_summary` snapshot pins every command.
    for group in ["orders", "shipments", "webhooks", "customer-groups"] {
        let mut cmd = store_admin();
        cmd.args([group, "-h"]);
        let (stdout, _) = run(cmd, 0);
        insta::assert_snapshot!(format!("help_group_{group}"), stdout);
    }
}

#[test]
fn help_of_commands_with_many_flags() {
    // Operation commands by operationId (their path follows the document's tags), then the
    // hand-written ones by path; each snapshot is named after what it shows.
    let operations = [
        ("coupons_create", "create_coupon"),
        ("orders_list", "list_orders"),
        ("products_quantities", "list_product_quantities"),
        ("shipments_create", "create_shipment"),
        ("webhooks_subscribe", "subscribe_webhook"),
    ];
    let mut commands: Vec<(&str, &str)> = operations
        .iter()
        .map(|(name, id)| {
            let path = store_admin_cli::cli::command_for(id).expect("a command");
            (*name, path)
        })
        .collect();
    commands.extend([
        ("webhooks_verify", "webhooks verify"),
        ("webhooks_listen", "webhooks listen"),
        ("api", "api"),
        ("auth_login", "auth login"),
        ("auth_import", "auth import"),
        ("sandbox", "sandbox"),
        ("sandbox_reset", "sandbox reset"),
    ]);
    for (name, path) in commands {
        let args: Vec<&str> = path.split(' ').collect();
        let mut cmd = store_admin();
        cmd.args(&args).arg("-h");
        let (stdout, _) = run(cmd, 0);
        insta::assert_snapshot!(format!("help_{name}"), stdout);
    }
}

#[test]
fn help_never_shows_the_token_from_the_environment() {
    for args in [&["--help"][..], &["webhooks", "verify", "--help"]] {
        let mut cmd = store_admin();
        cmd.env("STORE_ADMIN_TOKEN", "tok-from-env-123")
            .env("STORE_ADMIN_WEBHOOK_SECRET", "whsec-from-env-456")
            .args(args);
        let (stdout, _) = run(cmd, 0);
        assert!(stdout.contains("STORE_ADMIN_"), "{stdout}");
        assert!(!stdout.contains("tok-from-env-123"));
        assert!(!stdout.contains("whsec-from-env-456"));
    }
}

#[test]
fn help_never_shows_the_client_secret_or_a_redis_password_from_the_environment() {
    let mut cmd = store_admin();
    cmd.env("STORE_ADMIN_CLIENT_SECRET", "client-secret-from-env-789")
        .env(
            "STORE_ADMIN_TOKEN_STORE",
            "redis://:redis-password-from-env@127.0.0.1:6379/0",
        )
        .env(
            "STORE_ADMIN_RATE_LIMIT_STORE",
            "redis://:limit-password-from-env@127.0.0.1:6379/0",
        )
        .args(["--help"]);
    let (stdout, _) = run(cmd, 0);
    assert!(stdout.contains("STORE_ADMIN_TOKEN_STORE"));
    assert!(stdout.contains("STORE_ADMIN_CLIENT_SECRET"));
    for secret in [
        "client-secret-from-env-789",
        "redis-password-from-env",
        "limit-password-from-env",
    ] {
        assert!(!stdout.contains(secret), "{secret} in\n{stdout}");
    }
}

#[test]
fn the_command_names_of_earlier_versions_still_resolve() {
    // Every command path of version 0.2 (the file lists them with their operation), now a hidden
    // alias where the name changed.
    let list = include_str!("fixtures/command_paths_v1.tsv");
    let mut renamed = 0;
    for line in list.lines().filter(|l| !l.trim().is_empty()) {
        let (old, operation_id) = line.split_once('\t').expect("PATH<TAB>OPERATION");
        let mut args = vec!["store-admin"];
        args.extend(old.split(' '));
        args.push("--help");
        let error = command()
            .try_get_matches_from(&args)
            .err()
            .unwrap_or_else(|| panic!("`{old} --help` parsed as a call"));
        assert_eq!(
            error.kind(),
            clap::error::ErrorKind::DisplayHelp,
            "`{old}`: {error}"
        );
        assert!(
            error.to_string().contains(operation_id),
            "`{old}` does not reach {operation_id}"
        );
        if store_admin_cli::cli::command_for(operation_id) != Some(old) {
            renamed += 1;
        }
    }
    assert!(
        renamed > 0,
        "no command was renamed: the test checks nothing"
    );
}

#[test]
fn verb_names_do_not_repeat_their_group() {
    for (path, _) in OPERATION_COMMANDS {
        let (group, verb) = path.split_once(' ').expect("group verb");
        let group_words: Vec<&str> = group.split('-').collect();
        for word in verb.split('-') {
            let one = word.trim_end_matches('s');
            assert!(
                !group_words
                    .iter()
                    .any(|g| g.trim_end_matches('s') == one && verb != word),
                "`{path}` repeats `{word}` of its group"
            );
        }
    }
    // The hidden aliases are not listed.
    let help = find("customer-groups").render_help().to_string();
    assert!(!help.contains("add-customers-to-group"), "{help}");
}

#[test]
fn group_descriptions_are_whole_sentences() {
    let groups: std::collections::BTreeSet<&str> = OPERATION_COMMANDS
        .iter()
        .filter_map(|(path, _)| path.split(' ').next())
        .collect();
    for group in command()
        .get_subcommands()
        .filter(|g| groups.contains(g.get_name()))
    {
        let about = group.get_about().map(|a| a.to_string()).unwrap_or_default();
        // (clap's derive drops the last full stop of a one-sentence doc comment.)
        assert!(
            !about.ends_with(" a") && !about.is_empty(),
            "`{}`: {about:?}",
            group.get_name()
        );
        assert_eq!(
            about.matches('(').count(),
            about.matches(')').count(),
            "`{}` is cut: {about:?}",
            group.get_name()
        );
    }
}

#[test]
fn a_verb_s_help_leads_with_what_it_does_and_lists_the_global_options_once() {
    let path = store_admin_cli::cli::command_for("create_coupon").expect("a command");
    let mut args: Vec<&str> = path.split(' ').collect();
    args.push("--help");
    let stdout = help(&args[..args.len() - 1]);
    let operation = stdout
        .find("Operation: create_coupon")
        .expect("the operation");
    let scopes = stdout.find("Scopes").expect("the scopes");
    let usage = stdout.find("Usage:").expect("usage");
    let own = stdout.find("--amount").expect("its own flag");
    assert!(
        operation < usage && scopes < usage && usage < own,
        "{stdout}"
    );
    // No global option in a verb's help, but where to find them.
    for global in [
        "--base-url",
        "--token-file",
        "--sandbox-faults",
        "--rate-limit-store",
    ] {
        assert!(
            !stdout.contains(&format!("      {global} ")),
            "{global} listed in\n{stdout}"
        );
    }
    assert!(stdout.contains("see `store-admin --help`"), "{stdout}");
    // The root's help lists them.
    let root = help(&[]);
    for global in [
        "--base-url",
        "--token-file",
        "--sandbox-faults",
        "--rate-limit-store",
    ] {
        assert!(root.contains(global), "{global} not in the root help");
    }
}

#[test]
fn flag_help_says_nothing_about_the_api_document() {
    for (path, _) in OPERATION_COMMANDS {
        let cmd = find(path);
        for arg in cmd.get_arguments() {
            let text = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            // A description that is one sentence about the document is kept whole for now.
            for note in ["taken here", "this document"] {
                assert!(
                    !text.to_lowercase().contains(note),
                    "`{path} --{}`: {text}",
                    arg.get_id()
                );
            }
        }
    }
}

#[test]
fn the_root_help_names_every_exit_code_of_the_readme() {
    let readme = include_str!("../README.md");
    let codes: Vec<u8> = readme
        .lines()
        .skip_while(|line| !line.starts_with("## Exit codes"))
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| line.strip_prefix("| ")?.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(codes, (0..=6).collect::<Vec<u8>>(), "the README's table");
    let help = help(&[]).split_whitespace().collect::<Vec<_>>().join(" ");
    let said = help
        .split_once("Exit codes:")
        .map(|(_, rest)| rest)
        .expect("the help has its exit codes");
    for code in codes {
        assert!(
            said.contains(&format!(" {code} ")),
            "exit code {code} missing from: {said}"
        );
    }
}

#[test]
fn the_help_shows_no_empty_environment_value() {
    // clap shows `[env: NAME=]` for a variable that is not set unless its values are hidden.
    let root = help(&[]);
    assert!(root.contains("[env: STORE_ADMIN_PROFILE]"), "{root}");
    for args in [&[][..], &["products", "list"][..], &["auth", "login"][..]] {
        let text = help(args);
        assert!(!text.contains("=]"), "{args:?}: {text}");
    }
}

#[test]
fn the_root_help_lists_the_commands_by_name() {
    let help = help(&[]);
    let names: Vec<&str> = help
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        // A name is indented by two; a wrapped description by more.
        .filter(|line| !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(
        names.len() > 53,
        "every group and the hand-written commands: {names:?}"
    );
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}
