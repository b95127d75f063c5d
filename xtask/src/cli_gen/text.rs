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
];

/// The first paragraph of a description as help for a user: one line, without the notes about
/// the document ([`DOCUMENT_NOTES`]): a parenthesis that holds one is dropped, then a sentence.
pub(super) fn user_text(text: &str) -> String {
    let paragraph = doc_text(text);
    let is_note = |t: &str| {
        let lower = t.to_ascii_lowercase();
        DOCUMENT_NOTES.iter().any(|n| lower.contains(n))
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
    let text = if kept.is_empty() {
        sentences.first().copied().unwrap_or_default().to_owned()
    } else {
        kept.join(" ")
    };
    text.split_whitespace().collect::<Vec<_>>().join(" ")
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
