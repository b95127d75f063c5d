//! The document's descriptions as help for users: notes about the document left out, sentences.

/// Words that mark a note about the API document or its sources, not about the value: help for
/// users leaves out the sentences and parentheses that hold one.
pub(super) const DOCUMENT_NOTES: &[&str] = &[
    "documentation",
    "documented",
    "the document",
    "this document",
    "document's",
    "taken here",
    "mock store",
    "progenitor",
    "typify",
    "generated code",
    "generated client",
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

/// The first paragraph of a description as help for a user: one line, without the notes about
/// the document ([`DOCUMENT_NOTES`]): a parenthesis that holds one is dropped, then a sentence.
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
        self.paragraph(&doc_text(text), true)
    }

    /// Every paragraph of `text` for users, each as [`Words::text`] (one that holds only notes
    /// left out), a blank line between them.
    pub(super) fn paragraphs(&self, text: &str) -> String {
        text.trim()
            .split("\n\n")
            .map(|p| self.paragraph(&p.split_whitespace().collect::<Vec<_>>().join(" "), false))
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

    /// One paragraph for users; when every sentence is a note, the first one up to its note
    /// if `keep_one`, else nothing.
    fn paragraph(&self, paragraph: &str, keep_one: bool) -> String {
        // `(`AffiliateCampaignInput`: title, type)` -> `(title, type)`.
        let mut paragraph = paragraph.to_owned();
        for name in &self.types {
            paragraph = paragraph.replace(&format!("`{name}`: "), "");
        }
        let is_note = |t: &str| {
            let lower = t.to_ascii_lowercase();
            DOCUMENT_NOTES.iter().any(|n| lower.contains(n)) || self.names_a_type(t)
        };
        // Parentheses (nested ones included) that hold a note.
        let mut out = String::new();
        let mut stack: Vec<String> = Vec::new();
        for c in paragraph.chars() {
            match c {
                '(' => stack.push(String::from("(")),
                ')' if !stack.is_empty() => {
                    let mut inner = stack.pop().expect("not empty");
                    inner.push(')');
                    let keep = !is_note(&inner);
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
        let sentences: Vec<&str> = sentences(&out);
        let kept: Vec<&str> = sentences.iter().copied().filter(|s| !is_note(s)).collect();
        let text = if kept.is_empty() && !keep_one {
            String::new()
        } else if kept.is_empty() {
            // Every sentence is a note: the first one up to the clause of its first note
            // (`Global trade item number (barcode number): a string, or an integer as the
            // documented example sends it` -> `... (barcode number): a string.`).
            let first = sentences.first().copied().unwrap_or_default();
            let lower = first.to_ascii_lowercase();
            let note_at = DOCUMENT_NOTES
                .iter()
                .filter_map(|n| lower.find(n))
                .min()
                .unwrap_or(first.len());
            match first[..note_at].rfind([',', ':', ';']) {
                Some(cut) if !first[..cut].trim().is_empty() && !is_note(&first[..cut]) => {
                    format!("{}.", first[..cut].trim())
                }
                _ => first.to_owned(),
            }
        } else {
            kept.join(" ")
        };
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
