//! The command paths of earlier versions, kept working: scripts written against
//! `store-admin products quantities` or `store-admin shipping companies list` must not break when
//! the generated tree names the operation differently (`products list-quantities`, or a group of
//! its own once the document gives it a tag of its own).
//!
//! Each old path names its operation; before parsing, an old path on the command line is replaced
//! by the operation's current path ([`crate::cli::command_for`]), so that the alias follows the
//! document wherever the generated name goes.

use std::ffi::OsString;

/// Command paths of earlier versions and the operation each one calls.
pub const LEGACY_COMMANDS: &[(&str, &str)] = &[
    ("products quantities", "list_product_quantities"),
    ("products variant get", "get_product_variant"),
    ("products option create", "create_product_option"),
    ("orders list", "list_orders"),
    ("orders get", "get_order"),
    ("orders statuses", "list_order_statuses"),
    ("orders shipments", "list_order_shipments"),
    ("orders update-shipment", "update_order_shipment"),
    ("orders cancel-shipment", "cancel_order_shipment"),
    ("reservations list", "list_reservations"),
    ("shipments list", "list_shipments"),
    ("shipments get", "get_shipment"),
    ("shipments create", "create_shipment"),
    ("shipments update", "update_shipment"),
    ("shipments cancel", "cancel_shipment"),
    ("shipments return", "return_shipment"),
    ("shipments tracking", "get_shipment_tracking"),
    ("shipping companies list", "list_shipping_companies"),
    ("shipping companies get", "get_shipping_company"),
    ("shipping rule get", "get_shipping_rule"),
    ("shipping routes list", "list_shipping_routes"),
    ("shipping routes get", "get_shipping_route"),
    ("languages add", "add_languages"),
    ("categories create", "create_category"),
    ("webhooks list", "list_webhooks"),
    ("webhooks events", "list_webhook_events"),
    ("webhooks subscribe", "subscribe_webhook"),
    ("webhooks update", "update_webhook"),
    ("webhooks unsubscribe", "unsubscribe_webhooks"),
];

/// `args` (program name first) with an old command path replaced by the current one. Global
/// options before the command are skipped (with their values); anything that is not an old path,
/// or is also a current path, is left alone.
pub fn rewrite(args: Vec<OsString>, root: &clap::Command) -> Vec<OsString> {
    let Some(start) = command_start(&args, root) else {
        return args;
    };
    let given: Vec<&str> = args[start..].iter().map_while(|a| a.to_str()).collect();
    let mut candidates: Vec<&(&str, &str)> = LEGACY_COMMANDS.iter().collect();
    candidates.sort_by_key(|(path, _)| std::cmp::Reverse(path.split(' ').count()));
    for (old, operation_id) in candidates {
        let words: Vec<&str> = old.split(' ').collect();
        if given.len() < words.len() || given[..words.len()] != words[..] {
            continue;
        }
        if is_command_path(root, &words) {
            return args;
        }
        let Some(current) = crate::cli::command_for(operation_id) else {
            return args;
        };
        let mut out: Vec<OsString> = args[..start].to_vec();
        out.extend(current.split(' ').map(OsString::from));
        out.extend(args[start + words.len()..].iter().cloned());
        return out;
    }
    args
}

/// Where the command words begin: after the program name and the global options (and their
/// values).
fn command_start(args: &[OsString], root: &clap::Command) -> Option<usize> {
    let takes_value = |matches: &dyn Fn(&clap::Arg) -> bool| {
        root.get_arguments()
            .any(|a| matches(a) && a.get_action().takes_values())
    };
    let mut index = 1;
    while index < args.len() {
        let text = args[index].to_str()?;
        if text == "--" {
            return None;
        }
        if let Some(long) = text.strip_prefix("--") {
            if !long.contains('=') && takes_value(&|a| a.get_long() == Some(long)) {
                index += 1;
            }
            index += 1;
            continue;
        }
        if let Some(shorts) = text.strip_prefix('-').filter(|s| !s.is_empty()) {
            let chars: Vec<char> = shorts.chars().collect();
            for (at, c) in chars.iter().enumerate() {
                if takes_value(&|a| a.get_short() == Some(*c)) {
                    if at + 1 == chars.len() {
                        index += 1;
                    }
                    break;
                }
            }
            index += 1;
            continue;
        }
        return Some(index);
    }
    None
}

/// Whether `words` lead to a command of the current tree.
fn is_command_path(root: &clap::Command, words: &[&str]) -> bool {
    let mut current = root;
    for word in words {
        match current.find_subcommand(word) {
            Some(next) => current = next,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(line: &str) -> String {
        let args: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        let out = rewrite(args, &crate::cli::command());
        out.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn old_paths_become_the_current_ones_after_global_options() {
        let current = crate::cli::command_for("list_product_quantities").unwrap();
        assert_eq!(
            rewritten("store-admin --sandbox -o json products quantities --all"),
            format!("store-admin --sandbox -o json {current} --all")
        );
        let current = crate::cli::command_for("list_shipping_companies").unwrap();
        assert_eq!(
            rewritten("store-admin --base-url http://x -v shipping companies list"),
            format!("store-admin --base-url http://x -v {current}")
        );
    }

    #[test]
    fn current_paths_and_other_words_are_left_alone() {
        assert_eq!(
            rewritten("store-admin --sandbox orders list --status 1"),
            "store-admin --sandbox orders list --status 1"
        );
        assert_eq!(
            rewritten("store-admin api GET /products/quantities"),
            "store-admin api GET /products/quantities"
        );
        assert_eq!(
            rewritten("store-admin --token products quantities"),
            "store-admin --token products quantities",
            "`products` is the token's value here"
        );
    }
}
