//! The document's descriptions as help for users.
//!
//! The document is written for developers as well: an `x-assumed` element says, in its
//! description, what was assumed and why; a description names schemas and operationIds. Help
//! keeps what the value or the command is and leaves out the rest, as finely as the text
//! allows: a parenthesis that holds a note, else the note's clause and what follows it in its
//! sentence, never a sentence's user's words before the note (`Manufacturer part number: a
//! string (codes may start with zeros ...), or an integer as the documented example sends
//! it` keeps all but the last clause). A sentence without a note is kept as it is written
//! (tested over every description of the document). What is a note is said by words here
//! ([`DOCUMENT_NOTES`]); the CLI's help leak scan checks the result by the document's structure
//! instead, so that a note these words miss is found there.
//!
//! A field the document does not describe is named from its name ([`named_field`]), in English
//! word order or as a label beside the exact field.

/// Words that mark a note about the API document or its sources, not about the value: help for
/// users leaves out the parentheses and the clauses that hold one ([`is_note`]), as whole words
/// (`generated code`, not `generated codes`). A backticked extension of the document
/// (`` `x-webhook-events` ``) marks one too.
pub(super) const DOCUMENT_NOTES: &[&str] = &[
    "documentation",
    "documented",
    "this document",
    "document's",
    "taken here",
    "mock store",
    "path item",
    "path-level",
    "progenitor",
    "typify",
    "generated code",
    "generated client",
    "generated clients",
    "code generator",
    "assumed",
    "open string",
    "enum variant",
    "declares",
    "declared",
    "generated rust",
    "example sends",
    "examples send",
    "service's schema",
    "its schema",
    "schema says",
];

/// Whether `text` holds a note about the document: a word of [`DOCUMENT_NOTES`] (ending where
/// a word ends: `undocumented` holds one, `generated codes` does not) or a backticked extension
/// of the document (`` `x-assumed` ``).
pub(super) fn is_note(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    DOCUMENT_NOTES.iter().any(|note| {
        lower.match_indices(note).any(|(at, _)| {
            !lower[at + note.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric)
        })
    }) || text.contains("`x-")
}

/// The first paragraph of a description as help for a user: one line, without the notes about
/// the document ([`is_note`]): a parenthesis that holds one is dropped, then a sentence's
/// clauses from the note on.
pub(super) fn user_text(text: &str) -> String {
    Words::default().text(text)
}

/// What help for users says instead of the document's words for developers: an operationId
/// becomes the command a user types (`list_order_statuses` -> `order-status list`), and the
/// schemas' (types') names are left out, with the sentence or parenthesis that needs one.
#[derive(Default)]
pub(super) struct Words {
    /// operationId -> the command's words after `store-admin`.
    pub(super) commands: std::collections::BTreeMap<String, String>,
    /// The names of the document's schemas (`components/schemas`).
    pub(super) types: std::collections::BTreeSet<String>,
}

impl Words {
    /// The first paragraph of `text` for users: one line, notes for developers left out.
    pub(super) fn text(&self, text: &str) -> String {
        self.paragraph(&doc_text(text))
    }

    /// Every paragraph of `text` for users, each as [`Words::text`] (one that holds only notes
    /// left out), a blank line between them.
    pub(super) fn paragraphs(&self, text: &str) -> String {
        text.trim()
            .split("\n\n")
            .map(|p| self.paragraph(&p.split_whitespace().collect::<Vec<_>>().join(" ")))
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// Whether `text` names a schema: a backticked name, or one (`OrderPaymentMethod.x` too).
    fn names_a_type(&self, text: &str) -> bool {
        text.split('`').skip(1).step_by(2).any(|quoted| {
            let head = quoted.split(['.', '[', ' ']).next().unwrap_or_default();
            self.types.contains(head)
        })
    }

    /// One paragraph for users: its sentences without notes, a note's sentence cut before the
    /// note ([`user_clauses`]); nothing when every sentence is a note from its start.
    fn paragraph(&self, paragraph: &str) -> String {
        // `(`AffiliateCampaignInput`: title, type)` -> `(title, type)`.
        let mut paragraph = paragraph.to_owned();
        for name in &self.types {
            paragraph = paragraph.replace(&format!("`{name}`: "), "");
        }
        let note = |t: &str| is_note(t) || self.names_a_type(t);
        // Parentheses (nested ones included) that hold a note.
        let mut out = String::new();
        let mut stack: Vec<String> = Vec::new();
        for c in paragraph.chars() {
            match c {
                '(' => stack.push(String::from("(")),
                ')' if !stack.is_empty() => {
                    let mut inner = stack.pop().expect("not empty");
                    inner.push(')');
                    let keep = !note(&inner);
                    let target = stack.last_mut().unwrap_or(&mut out);
                    if keep {
                        target.push_str(&inner);
                    } else {
                        while target.ends_with(' ') {
                            target.pop();
                        }
                    }
                }
                _ => stack.last_mut().unwrap_or(&mut out).push(c),
            }
        }
        for rest in stack {
            out.push_str(&rest);
        }
        // A sentence that holds a note keeps its user's words: the clauses before the note's
        // (`Manufacturer part number: a string (codes may start with zeros), or an integer as
        // the documented example sends it` -> `... (codes may start with zeros).`); a sentence
        // whose first clause is the note is left out whole. A sentence without a note is kept
        // as it is written.
        let kept: Vec<String> = sentences(&out)
            .into_iter()
            .filter_map(|s| match note(s) {
                false => Some(s.to_owned()),
                true => user_clauses(s, &note),
            })
            .collect();
        let text = kept.join(" ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        self.commands_for_ids(&text)
    }

    /// `text` with each operationId as the command a user types: `` `order-status list` ``.
    fn commands_for_ids(&self, text: &str) -> String {
        if self.commands.is_empty() {
            return text.to_owned();
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            let (before, from) = rest.split_at(start);
            out.push_str(before);
            let end = from
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(from.len());
            let (word, after) = from.split_at(end);
            let quoted = out.ends_with('`') && after.starts_with('`');
            match self.commands.get(word) {
                Some(command) if quoted => out.push_str(command),
                Some(command) if word.contains('_') => out.push_str(&format!("`{command}`")),
                _ => out.push_str(word),
            }
            rest = after;
        }
        out.push_str(rest);
        out
    }
}

/// The clauses of `sentence` before the first one that `is_note` (a note about the document),
/// as a sentence of their own; `None` when the first clause is the note. Clauses end at `, `,
/// `; ` and `: ` outside backticks and parentheses.
fn user_clauses(sentence: &str, is_note: &impl Fn(&str) -> bool) -> Option<String> {
    let mut kept_to = 0;
    let mut start = 0;
    let mut depth = 0usize;
    let mut quoted = false;
    let bytes = sentence.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'`' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => depth = depth.saturating_sub(1),
            b',' | b';' | b':' if !quoted && depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                if is_note(&sentence[start..i]) {
                    break;
                }
                kept_to = i;
                start = i + 1;
            }
            _ => {}
        }
        if i + 1 == bytes.len() && !is_note(&sentence[start..]) {
            // No clause holds the note alone (it spans them, inside backticks or a parenthesis
            // that the cuts do not split): nothing of the sentence is kept, rather than a note.
            kept_to = 0;
        }
    }
    // `..., `restoring`, and, listed by the documentation, ...` -> `..., `restoring`.`
    let mut kept = sentence[..kept_to].trim();
    for conjunction in [" and", " or", " but"] {
        kept = kept.strip_suffix(conjunction).unwrap_or(kept);
    }
    let kept = kept.trim_end_matches([',', ' ']);
    (!kept.is_empty() && !is_note(kept)).then(|| format!("{kept}."))
}

/// Abbreviations of field names, written out in help (`max_amount` -> "Maximum amount").
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("min", "minimum"),
    ("max", "maximum"),
    ("qty", "quantity"),
    ("desc", "description"),
];

/// What a field that the document does not describe is, from its name alone, with what the
/// body is about (`subject`: `product`, from the schema's name): "The product's sale price"
/// when the name's words read as an English noun phrase ([`in_noun_order`]), else the words as
/// a label beside the exact field: "Maximum amount donating: the product's
/// `max_amount_donating`" (never "the product's max amount donating", nor "the product's
/// created at"). A field named after its subject (`price` of a `product price`) is its words
/// alone.
pub(super) fn named_field(wire: &str, subject: Option<&str>) -> String {
    let words: Vec<String> = wire
        .split(['_', '-', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            ABBREVIATIONS
                .iter()
                .find(|(short, _)| w.eq_ignore_ascii_case(short))
                .map_or(w, |(_, long)| long)
                .to_lowercase()
        })
        .collect();
    let phrase = words.join(" ");
    let mut label = phrase.clone();
    if let Some(first) = label.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    match subject {
        Some(subject) if !words.iter().any(|w| subject.rsplit(' ').next() == Some(w)) => {
            match in_noun_order(&words) {
                true => format!("The {subject}'s {phrase}"),
                false => format!("{label}: the {subject}'s `{wire}`"),
            }
        }
        _ => label,
    }
}

/// Words that, first in a field's name, make it a verb or a question (`is_active`,
/// `has_options`, `allow_notes`), not a noun phrase.
const VERB_FIRST: &[&str] = &[
    "is", "has", "have", "can", "should", "must", "allow", "allows", "enable", "enabled",
    "disable", "show", "shows", "hide", "use", "uses", "include", "includes", "not", "with",
];

/// Words that, last in a field's name, leave it dangling (`created_at`, `sort_by`).
const PREPOSITIONS: &[&str] = &[
    "at", "on", "by", "to", "from", "in", "of", "for", "with", "per", "via",
];

/// Whether the words of a field's name, in their order, read as an English noun phrase after a
/// possessive ("the product's ..."): not a verb first (`is active`), nor a preposition last
/// (`created at`), nor, after other words, a participle last (`amount donating`, `items
/// included`), which English puts before its noun.
pub(super) fn in_noun_order(words: &[String]) -> bool {
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    let participle = words.len() > 1 && (last.ends_with("ing") || last.ends_with("ed"));
    !VERB_FIRST.contains(&first.as_str()) && !PREPOSITIONS.contains(&last.as_str()) && !participle
}

/// The sentences of a one-line text: each ends at `. `, `? ` or `! ` followed by a capital
/// letter, a digit or a backtick (so `e.g. a` and `2.5` do not end one).
pub(super) fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if matches!(bytes[i], b'.' | b'?' | b'!')
            && bytes.get(i + 1) == Some(&b' ')
            && bytes
                .get(i + 2)
                .is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'`')
        {
            out.push(text[start..=i].trim());
            start = i + 2;
        }
    }
    if start < text.len() && !text[start..].trim().is_empty() {
        out.push(text[start..].trim());
    }
    out
}

/// Help text for clap: the first paragraph, with trailing whitespace trimmed.
pub(super) fn doc_text(text: &str) -> String {
    let text = text.trim();
    let paragraph = text.split("\n\n").next().unwrap_or_default();
    paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
}
