//! Names on the command line: groups from tags, commands from operationIds (with the names of
//! earlier versions) and flags (see the naming rules in the parent module); the Rust names of the
//! document's names are `crate::names`'.

use crate::names::words;

pub(super) fn kebab_words(words: &[String]) -> String {
    words.join("-")
}

pub(super) fn singular(word: &str) -> String {
    if ["us", "ss", "is"].iter().any(|end| word.ends_with(end)) {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for suffix in ["sses", "shes", "ches", "xes", "uses"] {
        if word.ends_with(suffix) {
            return word[..word.len() - 2].to_owned();
        }
    }
    match word.strip_suffix('s') {
        Some(stem) if !stem.ends_with('s') && !stem.is_empty() => stem.to_owned(),
        _ => word.to_owned(),
    }
}

/// Words a command name does not end with once the group's words are gone (`add-to` of
/// `add_customers_to_group` in `Customer Groups` is `add`).
const DANGLING: &[&str] = &["to", "from", "of", "for", "in", "on", "by", "with", "and"];

/// The command name of an operation in its group: the operationId's words without the group's
/// words (singular and plural alike, anywhere), nor a preposition they leave dangling at the
/// end; the first word alone when nothing else is left. `list_brands` in `Brands` -> `list`,
/// `export_orders` in `Exports` -> `orders`, `change_bulk_order_statuses` in `Order Status` ->
/// `change-bulk`, `get_shipment_tracking` in `Shipments` -> `get-tracking`.
pub fn command_name(operation_id: &str, tag: &str) -> String {
    let op: Vec<String> = words(operation_id);
    let group: Vec<String> = words(tag).iter().map(|w| singular(w)).collect();
    let Some(first) = op.first() else {
        return operation_id.to_owned();
    };
    let mut name: Vec<String> = op
        .iter()
        .filter(|w| !group.contains(&singular(w)))
        .cloned()
        .collect();
    while name.len() > 1 && name.last().is_some_and(|w| DANGLING.contains(&w.as_str())) {
        name.pop();
    }
    if name.is_empty() || (name.len() == 1 && DANGLING.contains(&name[0].as_str())) {
        name = vec![first.clone()];
    }
    kebab_words(&name)
}

/// The command name of an operation in versions before 0.3 (kept as a hidden alias): the
/// operationId without the group's noun right after its first word.
pub fn earlier_command_name(operation_id: &str, tag: &str) -> String {
    let op: Vec<String> = words(operation_id);
    let tag: Vec<String> = words(tag).iter().map(|w| singular(w)).collect();
    let Some((first, rest)) = op.split_first() else {
        return operation_id.to_owned();
    };
    // The longest run right after the first word that is the tag or a trailing part of it.
    let mut drop = 0;
    for start in 0..tag.len() {
        let suffix = &tag[start..];
        if rest.len() >= suffix.len()
            && rest[..suffix.len()]
                .iter()
                .zip(suffix)
                .all(|(a, b)| singular(a) == *b)
        {
            drop = suffix.len();
            break;
        }
    }
    let mut name = vec![first.clone()];
    name.extend(rest[drop..].iter().cloned());
    kebab_words(&name)
}

/// The group of a tag: its words in kebab case, the words before the last singular as English
/// compounds are (`Digitals Product` -> `digital-products`, `Branches Allocations` ->
/// `branch-allocations`), the last one plural when a word before it was; an acronym (`DNS`)
/// stays as it is.
pub fn group_name(tag: &str) -> String {
    let original: Vec<&str> = tag
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let Some((last, modifiers)) = original.split_last() else {
        return tag.to_owned();
    };
    let mut out: Vec<String> = Vec::new();
    let mut plural_modifier = false;
    for word in modifiers {
        let lower = word.to_ascii_lowercase();
        let acronym = word.chars().all(|c| !c.is_ascii_lowercase());
        let one = if acronym {
            lower.clone()
        } else {
            singular(&lower)
        };
        plural_modifier |= one != lower;
        out.push(one);
    }
    let last = last.to_ascii_lowercase();
    out.push(if plural_modifier && singular(&last) == last {
        plural(&last)
    } else {
        last
    });
    kebab_words(&out)
}

/// The group of a tag in versions before 0.3: its words in kebab case.
pub(super) fn earlier_group_name(tag: &str) -> String {
    kebab_words(&words(tag))
}

pub(super) fn plural(word: &str) -> String {
    if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        return format!("{stem}ies");
    }
    if ["s", "x", "ch", "sh"].iter().any(|end| word.ends_with(end)) {
        return format!("{word}es");
    }
    format!("{word}s")
}

pub(super) fn flag(id: &str) -> String {
    id.replace('_', "-")
}

// ------------------------------------------------------------------------------------------------
// rendering
