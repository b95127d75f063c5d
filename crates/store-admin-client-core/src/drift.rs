//! Drift: what an answer needed of the [`lenient`](crate::lenient) decoding, and what it had that
//! the document does not declare, by JSON path. Never a value: paths, JSON types and counts only.
//!
//! [`observe`] decodes a body as its generated type once more, through a deserializer that keeps
//! the JSON path of the value being read (array indexes folded: `data[].title`, and a key that
//! looks like data folded into `<key>`, see [`looks_like_data`]):
//!
//! - each habit an adapter of [`lenient`](crate::lenient) applies is noted where it applies it
//!   ([`habits`] names them, as the mock store's drift check does), with the JSON type it read;
//! - each field that a record skips (serde's `IgnoredAny`, what a struct does with a key it does not
//!   declare) is noted with its JSON type.
//!
//! The findings are kept in a thread-local only while [`observe`] runs; when it does not, an
//! adapter's note is one thread-local read of a `false`. [`DriftReport`] adds findings up per
//! operation, with counts and the first and last time each was seen, in a format that serialises
//! (and reads back, so that reports merge: [`DriftReport::merge`]).
//!
//! What the path of an untagged enum's variant (a `oneOf`) cannot say: serde buffers the value and
//! tries each variant on the buffer, so a habit inside a variant is noted at the enum's own path, and
//! a field a variant skips is not seen.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor,
};
use serde::{Deserialize, Serialize};

/// The service's habits, as the drift reports (the client's and the mock store's) name them.
pub mod habits {
    /// A number sent as a string (`"42"`).
    pub const NUMBER_AS_STRING: &str = "a number sent as a string";
    /// A string sent as a number (`12` for `"12"`).
    pub const STRING_AS_NUMBER: &str = "a string sent as a number";
    /// A boolean sent as `0`/`1` or a word.
    pub const BOOLEAN_AS_NUMBER_OR_WORD: &str = "a boolean sent as 0/1 or a word (on/off, yes/no)";
    /// A number sent as `true`/`false`.
    pub const NUMBER_AS_BOOLEAN: &str = "a number sent as true/false";
    /// `null` where the document has no null.
    pub const NULL_FOR_VALUE: &str = "null where the document has no null";
    /// `[]` for an empty object.
    pub const EMPTY_ARRAY_FOR_OBJECT: &str = "[] for an empty object";
    /// A one-item list where a record is expected.
    pub const ONE_ITEM_ARRAY_FOR_OBJECT: &str = "a one-item list where a record is expected";
    /// An id (a single value) where a record is expected.
    pub const ID_FOR_RECORD: &str = "an id where a record is expected";
    /// An object keyed by index where a list is expected.
    pub const INDEX_KEYED_OBJECT_FOR_LIST: &str =
        "an object keyed by index where a list is expected";
    /// One value where a list is expected.
    pub const ONE_VALUE_FOR_LIST: &str = "one value where a list is expected";
    /// A list where a map is expected (read as the map of its items by index).
    pub const LIST_FOR_MAP: &str = "a list where a map is expected";
    /// An empty object (`{}` or `[]`) for an optional record that cannot be empty: absent.
    pub const EMPTY_OBJECT_FOR_ABSENT: &str = "an empty object for an absent record";
    /// A value that fits no branch of a union (kept as its JSON).
    pub const VALUE_FITS_NO_BRANCH: &str = "a value that fits no branch of a union";
    /// A record's `id` left out (a create answer that echoes the record without it).
    pub const ABSENT_ID: &str = "a record's required id left out";
    /// A boolean, or a text's translations by locale, where a request's text is declared.
    pub const TEXT_AS_BOOLEAN_OR_OBJECT: &str = "a boolean or translations where text is expected";
}

/// A JSON type, as a report names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true`/`false`.
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    const ALL: [JsonType; 6] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn from_bits(bits: u8) -> impl Iterator<Item = JsonType> {
        Self::ALL.into_iter().filter(move |t| bits & t.bit() != 0)
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        })
    }
}

/// What one answer needed and had that the document does not declare (see [`observe`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    /// Per habit, per JSON path: how many times, and the JSON types read there.
    pub habits: BTreeMap<&'static str, BTreeMap<String, (u64, Vec<JsonType>)>>,
    /// Per undeclared field's JSON path: how many times, and the JSON types it had.
    pub unknown_fields: BTreeMap<String, (u64, Vec<JsonType>)>,
}

impl Findings {
    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.habits.is_empty() && self.unknown_fields.is_empty()
    }
}

/// The most paths one answer's findings keep (past it, further paths are not noted): a hostile
/// answer of a million undeclared keys costs a bounded report.
pub const PATHS_KEPT: usize = 256;

/// The current JSON path, kept raw (each key's text as read) and folded into its text only when a
/// finding is noted: a key costs a copy of its bytes into one buffer, never an allocation or the
/// test of [`looks_like_data`].
struct Recorder {
    /// The raw text of the keys on the path, one after the other.
    raw: String,
    /// The path's segments.
    segments: Vec<Segment>,
    /// The depths (numbers of segments) at which a map's keys (data, folded to `<key>`) or a
    /// list's index keys (`[]`) start: set by the `Map` and `Seq` adapters.
    scopes: Vec<(usize, Scope)>,
    habits: BTreeMap<&'static str, BTreeMap<String, (u64, u8)>>,
    unknown: BTreeMap<String, (u64, u8)>,
    paths: usize,
    /// The folded path, built when a finding is noted (kept for its allocation).
    text: String,
    /// The key just read, pushed when its value is read.
    pending: String,
}

/// One step of the path: where its key's text starts in `raw`, and what it is.
#[derive(Clone, Copy)]
struct Segment {
    start: usize,
    kind: SegmentKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SegmentKind {
    /// A record's key: its name, or `<key>` when it looks like data.
    Key,
    /// A key of a map whose keys are data: `<key>`.
    MapKey,
    /// A key of a list sent as an object keyed by index: `[]` when it is an index.
    IndexKey,
    /// An item of a list: `[]`.
    Item,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    MapKeys,
    ListIndexes,
}

impl Recorder {
    const fn new() -> Self {
        Recorder {
            raw: String::new(),
            segments: Vec::new(),
            scopes: Vec::new(),
            habits: BTreeMap::new(),
            unknown: BTreeMap::new(),
            paths: 0,
            text: String::new(),
            pending: String::new(),
        }
    }

    /// Keeps `key` for [`push_pending`](Self::push_pending).
    fn keep_key(&mut self, key: &str) {
        self.pending.clear();
        self.pending.push_str(key);
    }

    /// Pushes the key kept last.
    fn push_pending(&mut self) {
        let key = std::mem::take(&mut self.pending);
        self.push_key(&key);
        self.pending = key;
    }

    fn push_key(&mut self, key: &str) {
        let depth = self.segments.len();
        let kind = match self.scopes.last() {
            Some(&(at, Scope::MapKeys)) if at == depth => SegmentKind::MapKey,
            Some(&(at, Scope::ListIndexes)) if at == depth => SegmentKind::IndexKey,
            _ => SegmentKind::Key,
        };
        let start = self.raw.len();
        if kind != SegmentKind::MapKey {
            self.raw.push_str(key);
        }
        self.segments.push(Segment { start, kind });
    }

    fn push_index(&mut self) {
        self.segments.push(Segment {
            start: self.raw.len(),
            kind: SegmentKind::Item,
        });
    }

    fn pop(&mut self) {
        if let Some(segment) = self.segments.pop() {
            self.raw.truncate(segment.start);
        }
    }

    /// The folded path, in `self.text` (`.` for the top).
    fn fold(&mut self) {
        self.text.clear();
        for (at, segment) in self.segments.iter().enumerate() {
            let end = self
                .segments
                .get(at + 1)
                .map_or(self.raw.len(), |next| next.start);
            let key = &self.raw[segment.start..end];
            let name = match segment.kind {
                SegmentKind::Item => None,
                SegmentKind::IndexKey if is_index(key) => None,
                SegmentKind::MapKey => Some("<key>"),
                _ if looks_like_data(key) => Some("<key>"),
                _ => Some(key),
            };
            match name {
                None => self.text.push_str("[]"),
                Some(name) => {
                    if !self.text.is_empty() {
                        self.text.push('.');
                    }
                    self.text.push_str(name);
                }
            }
        }
        if self.text.is_empty() {
            self.text.push('.');
        }
    }

    fn note(&mut self, at: NoteAt, seen: JsonType) {
        self.fold();
        let full = self.paths >= PATHS_KEPT;
        let entries = match at {
            NoteAt::Habit(habit) => self.habits.entry(habit).or_default(),
            NoteAt::Unknown => &mut self.unknown,
        };
        if let Some(entry) = entries.get_mut(self.text.as_str()) {
            entry.0 += 1;
            entry.1 |= seen.bit();
        } else if !full {
            entries.insert(self.text.clone(), (1, seen.bit()));
            self.paths += 1;
        }
    }

    fn findings(self) -> Findings {
        let types = |(count, bits): (u64, u8)| (count, JsonType::from_bits(bits).collect());
        Findings {
            habits: self
                .habits
                .into_iter()
                .map(|(habit, paths)| {
                    (
                        habit,
                        paths.into_iter().map(|(p, s)| (p, types(s))).collect(),
                    )
                })
                .collect(),
            unknown_fields: self
                .unknown
                .into_iter()
                .map(|(p, s)| (p, types(s)))
                .collect(),
        }
    }
}

enum NoteAt {
    Habit(&'static str),
    Unknown,
}

thread_local! {
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static RECORDER: RefCell<Recorder> = const { RefCell::new(Recorder::new()) };
}

fn with_recorder(f: impl FnOnce(&mut Recorder)) {
    if ACTIVE.with(Cell::get) {
        RECORDER.with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                f(&mut r);
            }
        });
    }
}

/// Notes that an adapter of [`lenient`](crate::lenient) applied `habit` to a value of type `seen`
/// at the current path. Nothing when no [`observe`] runs on this thread.
pub fn habit(habit: &'static str, seen: JsonType) {
    with_recorder(|r| r.note(NoteAt::Habit(habit), seen));
}

/// Marks the value about to be read as a map whose keys are data (the `Map` adapter): its keys are
/// folded into `<key>`. The guard ends the mark.
pub(crate) fn map_keys() -> ScopeGuard {
    ScopeGuard::enter(Scope::MapKeys)
}

/// Marks the value about to be read as a list that may come as an object keyed by index (the `Seq`
/// adapter): its keys read as `[]`. The guard ends the mark.
pub(crate) fn list_indexes() -> ScopeGuard {
    ScopeGuard::enter(Scope::ListIndexes)
}

/// Ends a scope mark when dropped.
pub(crate) struct ScopeGuard(bool);

impl ScopeGuard {
    fn enter(scope: Scope) -> Self {
        let mut entered = false;
        with_recorder(|r| {
            let at = r.segments.len();
            r.scopes.push((at, scope));
            entered = true;
        });
        ScopeGuard(entered)
    }
}

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        if self.0 {
            with_recorder(|r| {
                r.scopes.pop();
            });
        }
    }
}

/// Decodes `body` as `T` and answers what the decoding found (see the [module](self)), or the
/// decoding's error (a body nested deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) is refused before
/// serde reads it). Runs on the calling thread, synchronously.
pub fn observe<T: DeserializeOwned>(body: &[u8]) -> Result<Findings, String> {
    let (findings, decoded) = observe_partly::<T>(body);
    decoded.map(|()| findings)
}

/// What [`observe`] found up to where the decoding stopped, and whether it decoded (a record read
/// without the envelope's last field, a list's `pagination`, has findings for all it read).
pub fn observe_partly<T: DeserializeOwned>(body: &[u8]) -> (Findings, Result<(), String>) {
    if let Err(too_deep) = crate::check_depth(body) {
        return (Findings::default(), Err(too_deep.to_string()));
    }
    observe_unchecked::<T>(body)
}

/// [`observe`] of a body already found no deeper than [`MAX_DEPTH`](crate::MAX_DEPTH) by
/// [`check_depth`](crate::check_depth) (an answer the client decoded): the same findings, without
/// reading the body a third time. A deeper body is still refused, by serde_json's own limit.
pub fn observe_checked<T: DeserializeOwned>(body: &[u8]) -> Result<Findings, String> {
    let (findings, decoded) = observe_unchecked::<T>(body);
    decoded.map(|()| findings)
}

fn observe_unchecked<T: DeserializeOwned>(body: &[u8]) -> (Findings, Result<(), String>) {
    struct Active;
    impl Drop for Active {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(false));
        }
    }
    RECORDER.with(|r| *r.borrow_mut() = Recorder::new());
    ACTIVE.with(|a| a.set(true));
    let active = Active;
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let decoded = T::deserialize(Tracked(&mut deserializer)).and_then(|_| deserializer.end());
    drop(active);
    let recorder = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), Recorder::new()));
    (recorder.findings(), decoded.map_err(|e| e.to_string()))
}

/// Whether a key is a list index (`0`, `17`).
pub(crate) fn is_index(key: &str) -> bool {
    !key.is_empty() && key.bytes().all(|b| b.is_ascii_digit())
}

/// Whether a key name looks like data rather than a field's name: longer than 40 characters,
/// numeric, with characters a name has not (anything but ASCII letters, digits, `_` and `-`), or
/// random: at least 16 characters mixing three or more digits and letters, or of high entropy
/// (3.5 bits a character without a `_` or `-` between words, 4.2 with).
pub fn looks_like_data(key: &str) -> bool {
    if key.is_empty() || key == "<key>" {
        return false;
    }
    if key.len() > 40 {
        return true;
    }
    if !key
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return true;
    }
    let digits = key.bytes().filter(u8::is_ascii_digit).count();
    if digits == key.len() {
        return true;
    }
    let letters = key.bytes().filter(u8::is_ascii_alphabetic).count();
    let separated = key.contains(['_', '-']);
    key.len() >= 16
        && ((digits >= 3 && letters >= 3)
            || (!separated && entropy(key) >= 3.5)
            || entropy(key) >= 4.2)
}

/// Shannon entropy of the bytes of `text`, in bits per byte.
fn entropy(text: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in text.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let length = text.len() as f64;
    counts
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let p = f64::from(n) / length;
            -p * p.log2()
        })
        .sum()
}

// ---------------------------------------------------------------------------------------------
// The report

/// Drift per operation (its `operationId`), as the client counts it and as it serialises: the
/// same names as the mock store's `/__admin/drift`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DriftReport {
    /// Per operation.
    pub operations: BTreeMap<String, OperationDrift>,
}

/// What was seen of one operation's answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OperationDrift {
    /// Answers looked at.
    pub calls: u64,
    /// Answers that decoded.
    pub decoded: u64,
    /// Answers that did not.
    pub failed: u64,
    /// Answers the client passed by without looking at them, to keep what counting costs within
    /// its share of the processor under sustained load (`store_admin::drift`); absent when none
    /// was. The habits and fields below are those of the answers looked at (`calls`).
    #[serde(skip_serializing_if = "is_zero")]
    pub unexamined: u64,
    /// The habits the answers needed, by name ([`habits`]).
    pub habits: BTreeMap<String, HabitSeen>,
    /// Fields the document does not declare, by JSON path.
    pub unknown_fields: BTreeMap<String, Seen>,
}

/// One habit of one operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HabitSeen {
    /// Answers that needed it.
    pub answers: u64,
    /// Where it was first seen.
    pub first_path: String,
    /// Every path where it was seen.
    pub paths: BTreeMap<String, Seen>,
}

/// How often something was seen at one path, as which JSON types, and when.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Seen {
    /// Times seen (values, not answers: a list of 20 counts 20).
    pub count: u64,
    /// The JSON types seen there.
    pub types: Vec<JsonType>,
    /// First seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_seen: Option<DateTime<Utc>>,
    /// Last seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<DateTime<Utc>>,
}

impl Seen {
    fn add(&mut self, count: u64, types: &[JsonType], at: Option<DateTime<Utc>>) {
        self.count = self.count.saturating_add(count);
        for t in types {
            if !self.types.contains(t) {
                self.types.push(*t);
            }
        }
        self.types.sort();
        self.first_seen = match (self.first_seen, at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_seen = self.last_seen.max(at);
    }

    fn merge(&mut self, other: &Seen) {
        self.add(other.count, &other.types, other.first_seen);
        self.last_seen = self.last_seen.max(other.last_seen);
    }
}

/// Whether a count is zero (a count left out of the report then).
fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// The most operations a report keeps (an operation id comes from the generated code, not the
/// service; the bound is a guard).
const OPERATIONS_KEPT: usize = 1024;

impl DriftReport {
    /// Adds one answer of `operation`: decoded with `findings`, or not (`None`), at `at`.
    pub fn record(&mut self, operation: &str, findings: Option<&Findings>, at: DateTime<Utc>) {
        match findings {
            Some(findings) => self.record_answer(operation, findings, true, at),
            None => self.record_answer(operation, &Findings::default(), false, at),
        }
    }

    /// Adds one answer of `operation` that `decoded` or not, with what was found of it (of an
    /// answer that did not decode, what [`observe_partly`] found before the decoding stopped), at
    /// `at`.
    pub fn record_answer(
        &mut self,
        operation: &str,
        findings: &Findings,
        decoded: bool,
        at: DateTime<Utc>,
    ) {
        if !self.operations.contains_key(operation) && self.operations.len() >= OPERATIONS_KEPT {
            return;
        }
        let drift = self.operations.entry(operation.to_owned()).or_default();
        drift.calls += 1;
        if decoded {
            drift.decoded += 1;
        } else {
            drift.failed += 1;
        }
        for (habit, paths) in &findings.habits {
            let seen = drift.habits.entry((*habit).to_owned()).or_default();
            seen.answers += 1;
            for (path, (count, types)) in paths {
                if seen.first_path.is_empty() {
                    seen.first_path.clone_from(path);
                }
                if seen.paths.len() < PATHS_KEPT || seen.paths.contains_key(path) {
                    seen.paths
                        .entry(path.clone())
                        .or_default()
                        .add(*count, types, Some(at));
                }
            }
        }
        for (path, (count, types)) in &findings.unknown_fields {
            if drift.unknown_fields.len() < PATHS_KEPT || drift.unknown_fields.contains_key(path) {
                drift
                    .unknown_fields
                    .entry(path.clone())
                    .or_default()
                    .add(*count, types, Some(at));
            }
        }
    }

    /// Adds one answer of `operation` that was passed by without being looked at (see
    /// [`OperationDrift::unexamined`]).
    pub fn record_unexamined(&mut self, operation: &str) {
        if !self.operations.contains_key(operation) && self.operations.len() >= OPERATIONS_KEPT {
            return;
        }
        self.operations
            .entry(operation.to_owned())
            .or_default()
            .unexamined += 1;
    }

    /// Adds another report (of another process, or the mock store's) to this one.
    pub fn merge(&mut self, other: &DriftReport) {
        for (operation, theirs) in &other.operations {
            let ours = self.operations.entry(operation.clone()).or_default();
            ours.calls += theirs.calls;
            ours.unexamined += theirs.unexamined;
            ours.decoded += theirs.decoded;
            ours.failed += theirs.failed;
            for (habit, seen) in &theirs.habits {
                let mine = ours.habits.entry(habit.clone()).or_default();
                mine.answers += seen.answers;
                if mine.first_path.is_empty() {
                    mine.first_path.clone_from(&seen.first_path);
                }
                for (path, s) in &seen.paths {
                    mine.paths.entry(path.clone()).or_default().merge(s);
                }
            }
            for (path, s) in &theirs.unknown_fields {
                ours.unknown_fields
                    .entry(path.clone())
                    .or_default()
                    .merge(s);
            }
        }
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.operations.is_empty()
    }
}

// ---------------------------------------------------------------------------------------------
// The deserializer that keeps the path

/// A deserializer that keeps the current JSON path in the recorder, and notes what a record skips.
struct Tracked<D>(D);

/// The JSON type a visitor is handed.
struct TypeOf;

impl<'de> Visitor<'de> for TypeOf {
    type Value = JsonType;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<JsonType, E> {
        Ok(JsonType::Boolean)
    }
    fn visit_i64<E>(self, _: i64) -> Result<JsonType, E> {
        Ok(JsonType::Number)
    }
    fn visit_u64<E>(self, _: u64) -> Result<JsonType, E> {
        Ok(JsonType::Number)
    }
    fn visit_f64<E>(self, _: f64) -> Result<JsonType, E> {
        Ok(JsonType::Number)
    }
    fn visit_str<E>(self, _: &str) -> Result<JsonType, E> {
        Ok(JsonType::String)
    }
    fn visit_unit<E>(self) -> Result<JsonType, E> {
        Ok(JsonType::Null)
    }
    fn visit_none<E>(self) -> Result<JsonType, E> {
        Ok(JsonType::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<JsonType, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<JsonType, S::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(JsonType::Array)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<JsonType, M::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(JsonType::Object)
    }
}

macro_rules! forward {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(TrackedVisitor(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tracked<D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_unit_struct(name, TrackedVisitor(visitor))
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_newtype_struct(name, TrackedVisitor(visitor))
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, TrackedVisitor(visitor))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, TrackedVisitor(visitor))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_struct(name, fields, TrackedVisitor(visitor))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // An enum's variant and content are not paths of the document's records: read as they are.
        self.0.deserialize_enum(name, variants, visitor)
    }
    /// A value nobody reads: a key that the record does not declare. Noted with its type.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let seen = self.0.deserialize_any(TypeOf)?;
        with_recorder(|r| r.note(NoteAt::Unknown, seen));
        visitor.visit_unit()
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor whose lists and maps keep the path.
struct TrackedVisitor<V>(V);

macro_rules! forward_visit {
    ($($method:ident: $ty:ty)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TrackedVisitor<V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    forward_visit! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64
        visit_i128: i128 visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64
        visit_u128: u128 visit_f32: f32 visit_f64: f64 visit_char: char visit_str: &str
        visit_borrowed_str: &'de str visit_string: String visit_bytes: &[u8]
        visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Tracked(d))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Tracked(d))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<V::Value, S::Error> {
        self.0.visit_seq(TrackedSeq(seq))
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<V::Value, M::Error> {
        self.0.visit_map(TrackedMap { map, pushed: false })
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(data)
    }
}

/// A seed whose value is read with the path kept.
struct TrackedSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for TrackedSeed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Tracked(d))
    }
}

struct TrackedSeq<S>(S);

impl<'de, S: SeqAccess<'de>> SeqAccess<'de> for TrackedSeq<S> {
    type Error = S::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, S::Error> {
        with_recorder(Recorder::push_index);
        let item = self.0.next_element_seed(TrackedSeed(seed));
        with_recorder(Recorder::pop);
        item
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct TrackedMap<M> {
    map: M,
    /// Whether the key just read was kept for its value's path (a JSON key read as a string is;
    /// one read as a number is not, and reads as `<key>`).
    pushed: bool,
}

impl<'de, M: MapAccess<'de>> MapAccess<'de> for TrackedMap<M> {
    type Error = M::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, M::Error> {
        self.pushed = false;
        self.map.next_key_seed(CaptureKey {
            seed,
            pushed: &mut self.pushed,
        })
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, M::Error> {
        if std::mem::take(&mut self.pushed) {
            with_recorder(Recorder::push_pending);
        } else {
            with_recorder(|r| r.push_key("<key>"));
        }
        let value = self.map.next_value_seed(TrackedSeed(seed));
        with_recorder(Recorder::pop);
        value
    }
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key's seed that keeps the key's text (only while a recorder runs: JSON keys are strings).
struct CaptureKey<'a, S> {
    seed: S,
    pushed: &'a mut bool,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CaptureKey<'_, S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(CaptureKeyDeserializer {
            de: d,
            pushed: self.pushed,
        })
    }
}

struct CaptureKeyDeserializer<'a, D> {
    de: D,
    pushed: &'a mut bool,
}

macro_rules! capture {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.de.$method(CaptureKeyVisitor { visitor, pushed: self.pushed })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for CaptureKeyDeserializer<'_, D> {
    type Error = D::Error;
    capture! {
        deserialize_any deserialize_str deserialize_string deserialize_identifier
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_ignored_any
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_unit_struct(name, visitor)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_newtype_struct(name, visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_tuple(len, visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_tuple_struct(name, len, visitor)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_struct(name, fields, visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.de.deserialize_enum(name, variants, visitor)
    }
    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

struct CaptureKeyVisitor<'a, V> {
    visitor: V,
    pushed: &'a mut bool,
}

impl<V> CaptureKeyVisitor<'_, V> {
    /// Keeps the key for its value's path (the value is read next).
    fn push(&mut self, key: &str) {
        with_recorder(|r| r.keep_key(key));
        *self.pushed = true;
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CaptureKeyVisitor<'_, V> {
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.visitor.expecting(f)
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<V::Value, E> {
        self.push(v);
        self.visitor.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(mut self, v: &'de str) -> Result<V::Value, E> {
        self.push(v);
        self.visitor.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(mut self, v: String) -> Result<V::Value, E> {
        self.push(&v);
        self.visitor.visit_string(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.visitor.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.visitor.visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.visitor.visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.visitor.visit_f64(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.visitor.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.visitor.visit_borrowed_bytes(v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.visitor.visit_unit()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::lenient::{self, As};

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Customer {
        #[serde(deserialize_with = "As::<lenient::Num>::deserialize")]
        id: i64,
    }

    impl lenient::Primary for Customer {
        const FIELD: &'static str = "id";
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Item {
        #[serde(deserialize_with = "As::<lenient::Num>::deserialize")]
        id: i64,
        #[serde(deserialize_with = "As::<lenient::Str>::deserialize")]
        sku: String,
        #[serde(deserialize_with = "As::<lenient::Bool>::deserialize")]
        active: bool,
        #[serde(deserialize_with = "As::<lenient::Map<lenient::Str>>::deserialize")]
        names: BTreeMap<String, String>,
        #[serde(deserialize_with = "As::<lenient::Seq<lenient::Str>>::deserialize")]
        tags: Vec<String>,
        #[serde(deserialize_with = "As::<lenient::Ref>::deserialize")]
        customer: Customer,
    }

    #[derive(serde::Deserialize, Debug)]
    #[allow(dead_code)]
    struct Page {
        #[serde(deserialize_with = "As::<lenient::Seq<lenient::Obj>>::deserialize")]
        data: Vec<Item>,
    }

    fn paths(findings: &Findings, habit: &str) -> Vec<(String, u64, Vec<JsonType>)> {
        findings
            .habits
            .get(habit)
            .map(|paths| {
                paths
                    .iter()
                    .map(|(p, (n, t))| (p.clone(), *n, t.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn habits_and_undeclared_fields_are_found_by_path_with_indexes_folded() {
        let body = br#"{"data": [
            {"id": "1", "sku": 7, "active": "on", "names": {"ar": "x"}, "tags": "sale",
             "customer": 12, "secret_note": "do not keep me"},
            {"id": 2, "sku": "b", "active": true, "names": [], "tags": {"0": "a", "1": "b"},
             "customer": {"id": "3", "new_field": [1]}, "secret_note": 5}
        ], "meta": {"x": 1}}"#;
        let found = observe::<Page>(body).expect("decodes");
        assert_eq!(
            paths(&found, habits::NUMBER_AS_STRING),
            [
                ("data[].customer.id".into(), 1, vec![JsonType::String]),
                ("data[].id".into(), 1, vec![JsonType::String]),
            ]
        );
        assert_eq!(
            paths(&found, habits::STRING_AS_NUMBER),
            [("data[].sku".into(), 1, vec![JsonType::Number])]
        );
        assert_eq!(
            paths(&found, habits::BOOLEAN_AS_NUMBER_OR_WORD),
            [("data[].active".into(), 1, vec![JsonType::String])]
        );
        assert_eq!(
            paths(&found, habits::ONE_VALUE_FOR_LIST),
            [("data[].tags".into(), 1, vec![JsonType::String])]
        );
        assert_eq!(
            paths(&found, habits::INDEX_KEYED_OBJECT_FOR_LIST),
            [("data[].tags".into(), 1, vec![JsonType::Object])]
        );
        assert_eq!(
            paths(&found, habits::ID_FOR_RECORD),
            [("data[].customer".into(), 1, vec![JsonType::Number])]
        );
        assert_eq!(
            paths(&found, habits::EMPTY_ARRAY_FOR_OBJECT),
            [("data[].names".into(), 1, vec![JsonType::Array])]
        );
        let unknown: Vec<_> = found.unknown_fields.iter().collect();
        assert_eq!(
            unknown,
            [
                (
                    &"data[].customer.new_field".to_owned(),
                    &(1, vec![JsonType::Array])
                ),
                (
                    &"data[].secret_note".to_owned(),
                    &(2, vec![JsonType::Number, JsonType::String])
                ),
                (&"meta".to_owned(), &(1, vec![JsonType::Object])),
            ]
        );
        // No value reaches the findings (the map's key `ar` is data: folded).
        let text = format!("{found:?}");
        for value in ["do not keep me", "sale", "\"ar\"", "x\""] {
            assert!(!text.contains(value), "{value} in {text}");
        }
    }

    #[test]
    fn a_clean_body_finds_nothing_and_nothing_is_noted_outside_observe() {
        let body = br#"{"data": [{"id": 1, "sku": "a", "active": false, "names": {},
            "tags": ["x"], "customer": {"id": 2}}]}"#;
        assert!(observe::<Page>(body).expect("decodes").is_empty());
        // Outside observe, the adapters note nothing (and a later observe starts empty).
        let _: Page = serde_json::from_slice(
            br#"{"data": [{"id": "1", "sku": 1, "active": 1,
            "names": [], "tags": "t", "customer": 3}]}"#,
        )
        .expect("decodes");
        assert!(observe::<Page>(body).expect("decodes").is_empty());
    }

    #[test]
    fn keys_that_look_like_data_are_folded_and_paths_are_bounded() {
        let mut body = String::from(r#"{"data": [], "meta": {"#);
        for i in 0..(PATHS_KEPT + 50) {
            body.push_str(&format!(r#""field_{i}": 1,"#));
        }
        body.push_str(r#""0123456789": 1}, "aK9fj3kLq8ZpX2mN7vB4": {"a": 1}}"#);
        let found = observe::<Page>(body.as_bytes()).expect("decodes");
        assert_eq!(found.unknown_fields.len(), 2, "{:?}", found.unknown_fields);
        assert!(found.unknown_fields.contains_key("meta"));
        assert!(found.unknown_fields.contains_key("<key>"));
    }

    #[test]
    fn an_undecodable_or_too_deep_body_is_an_error_and_leaves_the_thread_clean() {
        assert!(observe::<Page>(br#"{"data": [{"id": "x"}]}"#).is_err());
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(observe::<Page>(deep.as_bytes()).is_err());
        assert!(!ACTIVE.with(Cell::get));
    }

    #[test]
    fn reports_count_answers_and_merge() {
        let body = br#"{"data": [{"id": "1", "sku": "a", "active": 1, "names": {},
            "tags": [], "customer": 1, "extra": true}]}"#;
        let found = observe::<Page>(body).expect("decodes");
        let early = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z")
            .expect("date")
            .with_timezone(&Utc);
        let late = DateTime::parse_from_rfc3339("2026-02-01T00:00:00Z")
            .expect("date")
            .with_timezone(&Utc);
        let mut one = DriftReport::default();
        one.record("list_items", Some(&found), early);
        one.record("list_items", None, early);
        let mut two = DriftReport::default();
        two.record("list_items", Some(&found), late);
        one.merge(&two);
        let drift = &one.operations["list_items"];
        assert_eq!((drift.calls, drift.decoded, drift.failed), (3, 2, 1));
        let extra = &drift.unknown_fields["data[].extra"];
        assert_eq!(extra.count, 2);
        assert_eq!(extra.types, [JsonType::Boolean]);
        assert_eq!(
            (extra.first_seen, extra.last_seen),
            (Some(early), Some(late))
        );
        assert_eq!(drift.habits[habits::NUMBER_AS_STRING].answers, 2);
        assert_eq!(
            drift.habits[habits::NUMBER_AS_STRING].first_path,
            "data[].id"
        );
        // It reads back what it writes.
        let text = serde_json::to_string(&one).expect("serialises");
        assert!(!text.contains("unexamined"), "no answer passed by: {text}");
        let back: DriftReport = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, one);
    }

    #[test]
    fn answers_passed_by_are_counted_apart_and_merge() {
        let mut one = DriftReport::default();
        one.record_unexamined("list_items");
        one.record_unexamined("list_items");
        let mut two = DriftReport::default();
        two.record("list_items", None, Utc::now());
        two.record_unexamined("list_items");
        one.merge(&two);
        let drift = &one.operations["list_items"];
        assert_eq!((drift.calls, drift.unexamined), (1, 3));
        let text = serde_json::to_string(&one).expect("serialises");
        assert!(text.contains(r#""unexamined":3"#), "{text}");
        let back: DriftReport = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, one);
    }
}
