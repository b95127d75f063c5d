//! Webhook rules (version 2): `attribute op value` comparisons joined with `AND` / `OR`.
//!
//! Operators are `=`, `!=`, `>` and `<`; numbers are bare, strings are in backticks (a bare word that
//! is not a number is taken as a string too, as in the service's example `payment_method = mada`).
//! `AND` binds tighter than `OR`.

use serde_json::Value;

/// A parsed rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// Alternatives (OR) of conjunctions (AND) of comparisons.
    any: Vec<Vec<Comparison>>,
}

#[derive(Debug, Clone, PartialEq)]
struct Comparison {
    attribute: String,
    op: Op,
    value: Literal,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
}

#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Number(f64),
    Text(String),
}

/// Why a rule does not parse.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("invalid rule at character {at}: {message}")]
pub struct RuleError {
    /// Character offset of the problem.
    pub at: usize,
    /// What was expected.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Text(String),
    Op(Op),
}

fn tokenize(input: &str) -> Result<Vec<(usize, Token)>, RuleError> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            c if c.is_whitespace() => i += 1,
            '`' => {
                let start = i;
                i += 1;
                let mut text = String::new();
                while i < chars.len() && chars[i] != '`' {
                    text.push(chars[i]);
                    i += 1;
                }
                if i >= chars.len() {
                    return Err(RuleError {
                        at: start,
                        message: "unterminated backtick string".into(),
                    });
                }
                i += 1;
                tokens.push((start, Token::Text(text)));
            }
            '=' => {
                // `==` is accepted as `=`.
                let step = if chars.get(i + 1) == Some(&'=') { 2 } else { 1 };
                tokens.push((i, Token::Op(Op::Eq)));
                i += step;
            }
            '!' if chars.get(i + 1) == Some(&'=') => {
                tokens.push((i, Token::Op(Op::Ne)));
                i += 2;
            }
            '>' => {
                tokens.push((i, Token::Op(Op::Gt)));
                i += 1;
            }
            '<' => {
                tokens.push((i, Token::Op(Op::Lt)));
                i += 1;
            }
            c if c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+') => {
                let start = i;
                let mut word = String::new();
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || matches!(chars[i], '_' | '.' | '-' | '+'))
                {
                    word.push(chars[i]);
                    i += 1;
                }
                tokens.push((start, Token::Word(word)));
            }
            other => {
                return Err(RuleError {
                    at: i,
                    message: format!("unexpected character {other:?}"),
                });
            }
        }
    }
    Ok(tokens)
}

impl Rule {
    /// Parses a rule; an empty or blank rule is `Ok(None)` (matches everything).
    pub fn parse(input: &str) -> Result<Option<Rule>, RuleError> {
        let tokens = tokenize(input)?;
        if tokens.is_empty() {
            return Ok(None);
        }
        let end = input.chars().count();
        let mut any = vec![Vec::new()];
        let mut iter = tokens.into_iter().peekable();
        loop {
            let (at, attribute) = match iter.next() {
                Some((at, Token::Word(word)))
                    if word
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_') =>
                {
                    (at, word)
                }
                Some((at, _)) => {
                    return Err(RuleError {
                        at,
                        message: "expected an attribute name".into(),
                    });
                }
                None => {
                    return Err(RuleError {
                        at: end,
                        message: "expected an attribute name".into(),
                    });
                }
            };
            let op = match iter.next() {
                Some((_, Token::Op(op))) => op,
                Some((at, _)) => {
                    return Err(RuleError {
                        at,
                        message: "expected =, !=, > or <".into(),
                    });
                }
                None => {
                    return Err(RuleError {
                        at: end,
                        message: format!("expected an operator after {attribute}"),
                    });
                }
            };
            let value = match iter.next() {
                Some((_, Token::Text(text))) => Literal::Text(text),
                Some((_, Token::Word(word))) => match word.parse::<f64>() {
                    Ok(n) => Literal::Number(n),
                    Err(_) => Literal::Text(word),
                },
                Some((at, _)) => {
                    return Err(RuleError {
                        at,
                        message: "expected a value".into(),
                    });
                }
                None => {
                    return Err(RuleError {
                        at: end,
                        message: "expected a value".into(),
                    });
                }
            };
            let _ = at;
            if let Some(group) = any.last_mut() {
                group.push(Comparison {
                    attribute,
                    op,
                    value,
                });
            }
            match iter.next() {
                None => break,
                Some((_, Token::Word(word))) if word.eq_ignore_ascii_case("and") => {}
                Some((_, Token::Word(word))) if word.eq_ignore_ascii_case("or") => {
                    any.push(Vec::new())
                }
                Some((at, _)) => {
                    return Err(RuleError {
                        at,
                        message: "expected AND or OR".into(),
                    });
                }
            }
        }
        Ok(Some(Rule { any }))
    }

    /// Whether `data` (the event's `data` object) satisfies the rule.
    pub fn matches(&self, data: &Value) -> bool {
        self.any
            .iter()
            .any(|all| all.iter().all(|c| c.matches(data)))
    }
}

fn lookup<'a>(data: &'a Value, attribute: &str) -> Option<&'a Value> {
    let direct = data.get(attribute);
    let found = direct.or_else(|| attribute.split('.').try_fold(data, |v, key| v.get(key)))?;
    // Amount objects compare by amount, references by id.
    match found {
        Value::Object(map) => map.get("amount").or_else(|| map.get("id")),
        other => Some(other),
    }
}

fn as_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

fn as_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Comparison {
    fn matches(&self, data: &Value) -> bool {
        let Some(actual) = lookup(data, &self.attribute) else {
            return false;
        };
        let numbers = match &self.value {
            Literal::Number(expected) => as_number(actual).map(|a| (a, *expected)),
            Literal::Text(text) => as_number(actual).zip(text.trim().parse::<f64>().ok()),
        };
        if let Some((a, b)) = numbers {
            return match self.op {
                Op::Eq => a == b,
                Op::Ne => a != b,
                Op::Gt => a > b,
                Op::Lt => a < b,
            };
        }
        let (Literal::Text(expected), Some(actual)) = (&self.value, as_text(actual)) else {
            return matches!(self.op, Op::Ne);
        };
        match self.op {
            Op::Eq => actual == *expected,
            Op::Ne => actual != *expected,
            Op::Gt | Op::Lt => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(text: &str) -> Rule {
        Rule::parse(text).unwrap().unwrap()
    }

    #[test]
    fn or_of_backtick_strings_matches_either_side() {
        let r = rule("status = `active` OR applied_to = `first_order`");
        assert!(r.matches(&json!({"status": "active", "applied_to": "all"})));
        assert!(r.matches(&json!({"status": "draft", "applied_to": "first_order"})));
        assert!(!r.matches(&json!({"status": "draft", "applied_to": "all"})));
    }

    #[test]
    fn bare_numbers_compare_numerically_and_bare_words_as_strings() {
        let r = rule("payment_method = mada OR price < 50");
        assert!(r.matches(&json!({"payment_method": "mada", "price": 80})));
        assert!(r.matches(&json!({"payment_method": "cod", "price": "49.5"})));
        assert!(!r.matches(&json!({"payment_method": "cod", "price": 50})));
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let r = rule("total > 100 AND status_id = 5 OR id = 1");
        assert!(r.matches(
            &json!({"total": {"amount": 150, "currency": "SAR"}, "status_id": 5, "id": 9})
        ));
        assert!(!r.matches(&json!({"total": 150, "status_id": 4, "id": 9})));
        assert!(r.matches(&json!({"total": 1, "status_id": 4, "id": 1})));
    }

    #[test]
    fn malformed_rules_are_errors() {
        assert!(Rule::parse("status = `active").is_err());
        assert!(Rule::parse("status active").is_err());
        assert!(Rule::parse("status = 1 AND").is_err());
        assert_eq!(Rule::parse("  ").unwrap(), None);
    }
}
