//! `--all --resume FILE`: an export that continues where an interrupted one stopped.
//!
//! FILE is a journal of JSON lines: a header (the operation, the store, the query, the output
//! format, the page size, the output's identity and where it stood when the export began), then
//! one line per page written: the export's [`Checkpoint`] after that page, the output's length
//! once the page was written, the SHA-256 of the bytes the export wrote up to there, and the keys
//! of the page's records; a last line once the export has finished. A line is appended after its
//! page is on standard output, so a process killed at any moment leaves a journal whose last
//! whole line is a state the output reached; output written after it (a page whose line was
//! never written) is cut off when the export resumes, and written again. The keys of every line
//! keep records written before from being written twice, whichever page they move to in the
//! meantime.
//!
//! A journal continues only its own export, into its own output: the store, the query, the
//! format and the page size must be the same, standard output must be the same file (device and
//! inode) holding the same bytes (the hash), and every line must be as it was written (each
//! line carries a hash chained from the header's: a line changed by hand is refused). Anything
//! else is refused (exit 2) before the output is touched, and the output is never cut below
//! where the export began. A journal is locked while an export uses it: a second process is
//! refused, naming the first's pid.
//!
//! The output must be a file the journal can measure and read back: standard output redirected
//! to it, appended to (`>> export.ndjson`) when resuming. NDJSON and CSV only: JSON and tables
//! are written once the last page is in, so there is nothing to continue.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use store_admin::{Checkpoint, Consistency, ConsistencyReport};

use crate::error::CliError;
use crate::global::Format;

/// The journal format written (1: before the store, the query, the output's identity and the
/// hashes were recorded; such a journal is refused, see [`Journal::open`]).
const VERSION: u32 = 2;

/// The journal's first line.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Header {
    /// Which kind of file this is, and its version.
    store_admin_export: u32,
    operation: String,
    /// The store exported: the base URL, and the `--store` whose tokens were used.
    base_url: String,
    store: Option<String>,
    /// The list's filters, `name=value` (the builder's values, page and page size aside).
    query: Vec<String>,
    format: Format,
    per_page: u64,
    /// The output file: its device and inode.
    output_device: u64,
    output_inode: u64,
    /// The output's length when the export began (it may append to an existing file): the
    /// export never cuts below it.
    output_start: u64,
}

/// A line per page written.
#[derive(Debug, Serialize, Deserialize)]
struct PageLine {
    #[serde(flatten)]
    checkpoint: Checkpoint,
    /// The output's length once the page was written.
    output: u64,
    /// SHA-256 (hex) of the output's bytes from `output_start` to `output`.
    output_sha256: String,
    /// The keys of the page's records.
    keys: Vec<String>,
}

/// The last line, once the export has finished.
#[derive(Debug, Serialize, Deserialize)]
struct DoneLine {
    done: bool,
    records: u64,
}

/// An export's journal, open for appending and locked.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// The lock's pid file (removed when the journal is dropped).
    pid_file: PathBuf,
    /// Standard output, as a file (to measure it).
    output: File,
    /// The output, opened again for reading (to hash what the export wrote).
    reader: File,
    /// The hash of the output's bytes from the export's start to `hashed_to`.
    hasher: Sha256,
    hashed_to: u64,
    /// The hash chain of the journal's lines: the last line's.
    chain: String,
    /// Records in the output from earlier runs of this export.
    pub written_before: u64,
    /// Whether the output holds records of this export already (a CSV header is then written).
    pub continues: bool,
    /// Whether the journal says the export finished.
    pub finished: bool,
}

/// What [`Journal::open`] needs to tell one export from another.
pub struct Export<'a> {
    /// The list's `operationId`.
    pub operation: &'a str,
    /// The base URL of the store.
    pub base_url: &'a str,
    /// The `--store` whose tokens are used, when known.
    pub store: Option<&'a str>,
    /// The list's filters (see [`query_of`]).
    pub query: Vec<String>,
    /// The output format.
    pub format: Format,
    /// Records per page (pages are numbered by it).
    pub per_page: u64,
}

/// The filters of a list request, `name=value`, from its builder's `Debug` text (progenitor's
/// builders derive it: `ListProducts { client: .., keyword: Ok(Some("shoe")), page: Ok(None) }`):
/// every field but the client, the page and the page size, and but those not set. Two requests
/// with the same filters give the same list.
pub fn query_of(debug: &str) -> Vec<String> {
    let Some(open) = debug.find('{') else {
        return Vec::new();
    };
    let body = debug[open + 1..].trim_end();
    let body = body.strip_suffix('}').unwrap_or(body);
    let mut query = Vec::new();
    for field in top_level_fields(body) {
        let Some((name, value)) = field.split_once(": ") else {
            continue;
        };
        let name = name.trim();
        if matches!(name, "client" | "page" | "per_page") || value == "Ok(None)" {
            continue;
        }
        let value = value
            .strip_prefix("Ok(Some(")
            .and_then(|v| v.strip_suffix("))"))
            .unwrap_or(value);
        query.push(format!("{name}={value}"));
    }
    query.sort();
    query
}

/// `body` split at its commas outside brackets and string or character literals.
fn top_level_fields(body: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                fields.push(body[start..at].trim());
                start = at + 1;
            }
            _ => {}
        }
    }
    let last = body[start..].trim();
    if !last.is_empty() {
        fields.push(last);
    }
    fields
}

fn standard_output() -> Result<File, CliError> {
    use std::os::fd::AsFd;
    let fd = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .map_err(|e| CliError::other(format!("standard output: {e}")))?;
    let file = File::from(fd);
    let is_file = file.metadata().map(|m| m.is_file()).unwrap_or(false);
    if !is_file {
        return Err(CliError::usage(
            "--resume needs standard output redirected to a file, so that the export can \
             continue it: `store-admin ... --all --resume export.journal >> export.ndjson`",
        ));
    }
    Ok(file)
}

/// Standard output opened again for reading (`>>` opens it for writing only): the export hashes
/// what it wrote.
fn read_back(output: &std::fs::Metadata) -> Result<File, CliError> {
    let path = if cfg!(target_os = "linux") {
        "/proc/self/fd/1"
    } else {
        "/dev/fd/1"
    };
    let cannot = |why: String| {
        CliError::usage(format!(
            "--resume reads the output back to check it is this export's, and cannot read \
             standard output ({why}): redirect it to a file you can read"
        ))
    };
    let file = File::open(path).map_err(|e| cannot(e.to_string()))?;
    let meta = file.metadata().map_err(|e| cannot(e.to_string()))?;
    if (meta.dev(), meta.ino()) != (output.dev(), output.ino()) {
        return Err(cannot("it opens as another file".to_owned()));
    }
    Ok(file)
}

fn io_error(path: &Path, what: &str, error: std::io::Error) -> CliError {
    CliError::other(format!("{what} {}: {error}", path.display()))
}

/// The hash chain: a line's is the SHA-256 of the previous line's and of its own JSON.
fn chained(previous: &str, body: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(previous.as_bytes());
    hasher.update(body.as_bytes());
    hex::encode(hasher.finalize())
}

/// A journal line as written: `{"sum":"<chain>",` then the line's JSON without its `{`.
fn sealed<T: Serialize>(previous: &str, line: &T) -> Result<(String, String), CliError> {
    let body = serde_json::to_string(line)
        .map_err(|e| CliError::other(format!("cannot write the journal: {e}")))?;
    let sum = chained(previous, &body);
    let text = format!("{{\"sum\":\"{sum}\",{}\n", &body[1..]);
    Ok((text, sum))
}

/// A line's JSON and its chain, when `line` (without its newline) is sealed after `previous`.
fn unsealed(previous: &str, line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("{\"sum\":\"")?;
    let (sum, rest) = (rest.get(..64)?, rest.get(64..)?);
    let body = format!("{{{}", rest.strip_prefix("\",")?);
    (chained(previous, &body) == sum).then(|| (body, sum.to_owned()))
}

/// SHA-256 of `length` bytes of `file` from `start`, fed into `hasher`.
fn hash_range(
    file: &mut File,
    hasher: &mut Sha256,
    start: u64,
    length: u64,
) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(start))?;
    let mut left = length;
    let mut buffer = vec![0u8; 64 * 1024];
    while left > 0 {
        let want = buffer
            .len()
            .min(usize::try_from(left).unwrap_or(usize::MAX));
        let read = file.read(&mut buffer[..want])?;
        if read == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the output is shorter than it was",
            ));
        }
        hasher.update(&buffer[..read]);
        left -= read as u64;
    }
    Ok(())
}

/// The journal's lock: the journal file itself, locked exclusively; the pid of the process that
/// holds it is in `FILE.pid` beside it.
fn lock(path: &Path, file: &File, pid_file: &Path) -> Result<(), CliError> {
    match fs4::FileExt::try_lock(file) {
        Ok(()) => {
            // Told to a second process only: a failure to write it is no reason to stop.
            let _ = std::fs::write(pid_file, format!("{}\n", std::process::id()));
            Ok(())
        }
        Err(fs4::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(pid_file)
                .ok()
                .and_then(|text| text.trim().parse::<u32>().ok())
                .map_or_else(|| "another process".to_owned(), |pid| format!("pid {pid}"));
            Err(CliError::usage(format!(
                "{} is in use by {holder}: an export is running with it; wait for it to end (or \
                 stop it) before continuing the export",
                path.display()
            )))
        }
        Err(fs4::TryLockError::Error(e)) => Err(io_error(path, "cannot lock the journal", e)),
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // The lock goes with the file; the pid file is only what a second process is told.
        let _ = std::fs::remove_file(&self.pid_file);
    }
}

impl Journal {
    /// Opens (or starts) the journal at `path` for `export`, locks it, checks it and the output
    /// against each other, and returns it with the export's state to resume from.
    pub fn open(path: &Path, export: Export<'_>) -> Result<(Journal, Consistency), CliError> {
        if !matches!(export.format, Format::Ndjson | Format::Csv) {
            return Err(CliError::usage(
                "--resume needs --output ndjson or --output csv: JSON and tables are written once \
                 the last page is in, so an interrupted one has nothing to continue",
            ));
        }
        let mut output = standard_output()?;
        let output_meta = output
            .metadata()
            .map_err(|e| CliError::other(format!("standard output: {e}")))?;
        let length = output_meta.len();
        let existed = path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| io_error(path, "cannot open the journal", e))?;
        let journal_meta = file
            .metadata()
            .map_err(|e| io_error(path, "cannot read the journal", e))?;
        if (journal_meta.dev(), journal_meta.ino()) == (output_meta.dev(), output_meta.ino()) {
            return Err(CliError::usage(format!(
                "{} is standard output itself: the journal and the export's output must be two \
                 files (`--resume export.journal >> export.ndjson`)",
                path.display()
            )));
        }
        let mut pid_name = path.as_os_str().to_owned();
        pid_name.push(".pid");
        let pid_file = PathBuf::from(pid_name);
        lock(path, &file, &pid_file)?;
        let reader = read_back(&output_meta)?;
        let mut journal = Journal {
            path: path.to_owned(),
            file: file.try_clone().map_err(|e| io_error(path, "journal", e))?,
            pid_file,
            output: output
                .try_clone()
                .map_err(|e| CliError::other(format!("standard output: {e}")))?,
            reader,
            hasher: Sha256::new(),
            hashed_to: length,
            chain: String::new(),
            written_before: 0,
            continues: false,
            finished: false,
        };
        let wanted = Header {
            store_admin_export: VERSION,
            operation: export.operation.to_owned(),
            base_url: export.base_url.to_owned(),
            store: export.store.map(str::to_owned),
            query: export.query,
            format: export.format,
            per_page: export.per_page,
            output_device: output_meta.dev(),
            output_inode: output_meta.ino(),
            output_start: length,
        };

        // The journal's whole lines (a last line cut short by a kill is dropped).
        let mut lines = Vec::new();
        let mut whole = 0u64;
        {
            let mut reader = BufReader::new(&mut file);
            let mut line = String::new();
            loop {
                line.clear();
                let read = reader
                    .read_line(&mut line)
                    .map_err(|e| io_error(path, "cannot read the journal", e))?;
                if read == 0 || !line.ends_with('\n') {
                    break;
                }
                whole += read as u64;
                lines.push(line.trim_end_matches('\n').to_owned());
            }
        }
        if lines.is_empty() {
            // A journal that existed but has no header, beside an output that holds bytes: they
            // may be an export's whose header was lost, which cannot be told apart.
            if existed && length > 0 {
                return Err(journal.empty_beside(length));
            }
            file.set_len(0)
                .map_err(|e| io_error(path, "cannot write the journal", e))?;
            journal.append(&wanted)?;
            return Ok((journal, Consistency::new()));
        }

        let header = journal.header(&lines[0], &wanted)?;
        let mut checkpoint = Checkpoint::default();
        let mut keys = Vec::new();
        let mut output_length = header.output_start;
        let mut output_sha256 = hex::encode(Sha256::new().finalize());
        for (number, line) in lines.iter().enumerate().skip(1) {
            let edited = || {
                CliError::usage(format!(
                    "line {} of {} is not as the export wrote it (changed by hand?): it cannot \
                     be trusted to continue the export; start again with a new --resume file \
                     and a new output",
                    number + 1,
                    path.display()
                ))
            };
            let (body, sum) = unsealed(&journal.chain, line).ok_or_else(edited)?;
            journal.chain = sum;
            if let Ok(done) = serde_json::from_str::<DoneLine>(&body)
                && done.done
            {
                journal.finished = true;
                journal.written_before = done.records;
                return Ok((journal, Consistency::new()));
            }
            let page: PageLine = serde_json::from_str(&body).map_err(|_| edited())?;
            // Offsets never go back (nor below where the export began).
            if page.output < output_length {
                return Err(edited());
            }
            checkpoint = page.checkpoint;
            output_length = page.output;
            output_sha256 = page.output_sha256;
            keys.extend(page.keys);
        }
        if length < output_length {
            return Err(CliError::usage(format!(
                "the output is shorter than {} says ({length} of {output_length} bytes): append \
                 to the export's output with `>>` (`>` empties it), or start again with a new \
                 --resume file",
                path.display()
            )));
        }
        // The bytes the export wrote must be there as they were.
        let mut hasher = Sha256::new();
        hash_range(
            &mut journal.reader,
            &mut hasher,
            header.output_start,
            output_length - header.output_start,
        )
        .map_err(|e| CliError::other(format!("cannot read the output back: {e}")))?;
        if hex::encode(hasher.clone().finalize()) != output_sha256 {
            return Err(CliError::usage(format!(
                "the output does not hold what the export of {} wrote (its bytes {}..{output_length} \
                 differ): it was changed since, or it is another file; nothing was cut or \
                 written. Continue with the export's own output, or start again with a new \
                 --resume file",
                path.display(),
                header.output_start
            )));
        }
        // Drop a line cut short (the process was killed while writing it).
        file.set_len(whole)
            .map_err(|e| io_error(path, "cannot repair the journal", e))?;
        // Records written after the last page line (their line never was): cut off, and written
        // again. Never below where the export began.
        let cut = output_length.max(header.output_start);
        output
            .set_len(cut)
            .and_then(|()| output.seek(SeekFrom::End(0)).map(|_| ()))
            .map_err(|e| {
                CliError::other(format!("cannot cut the output back to the last page: {e}"))
            })?;
        journal.hasher = hasher;
        journal.hashed_to = cut;
        journal.written_before = checkpoint.yielded;
        journal.continues = output_length > header.output_start;
        Ok((journal, Consistency::resume(checkpoint, keys)))
    }

    fn empty_beside(&self, length: u64) -> CliError {
        CliError::usage(format!(
            "{} has no header, while the output already holds {length} bytes: if they are an \
             export's with this journal, nothing says which records they are, so it cannot \
             continue (that would write them again). Start again with a new --resume file and a \
             new output (or remove {} to export after what the output holds)",
            self.path.display(),
            self.path.display()
        ))
    }

    /// The header in `line`, checked against the export asked for.
    fn header(&mut self, line: &str, wanted: &Header) -> Result<Header, CliError> {
        let path = &self.path;
        let version = serde_json::from_str::<serde_json::Value>(line)
            .ok()
            .and_then(|v| {
                v.get("store_admin_export")
                    .and_then(serde_json::Value::as_u64)
            });
        match version {
            Some(v) if v == u64::from(VERSION) => {}
            Some(1) => {
                return Err(CliError::usage(format!(
                    "{} is a journal of an earlier store-admin (version 1), which did not record \
                     the store, the query and the output it belongs to, so it cannot be checked: \
                     finish the export with the store-admin that began it, or start again with \
                     a new --resume file and a new output",
                    path.display()
                )));
            }
            Some(v) => {
                return Err(CliError::usage(format!(
                    "{} is a journal of version {v}, which this store-admin does not know \
                     (it writes version {VERSION}): use the store-admin that began the export",
                    path.display()
                )));
            }
            None => {
                return Err(CliError::usage(format!(
                    "{} is not a store-admin export journal (give --resume a new file name, or \
                     the journal of the export to continue)",
                    path.display()
                )));
            }
        }
        let Some((body, sum)) = unsealed("", line) else {
            return Err(CliError::usage(format!(
                "the first line of {} is not as the export wrote it (changed by hand?): it cannot \
                 be trusted to continue the export; start again with a new --resume file and a \
                 new output",
                path.display()
            )));
        };
        let header: Header = serde_json::from_str(&body).map_err(|_| {
            CliError::usage(format!(
                "{} is not a store-admin export journal (give --resume a new file name, or the \
                 journal of the export to continue)",
                path.display()
            ))
        })?;
        self.chain = sum;
        let same = |what: &str, theirs: String, ours: String| {
            if theirs == ours {
                Ok(())
            } else {
                Err(CliError::usage(format!(
                    "{} is the journal of another export ({what} {theirs}, not {ours}); continue \
                     it with the same command, or give --resume a new file name",
                    path.display()
                )))
            }
        };
        let listed = |query: &[String]| {
            if query.is_empty() {
                "(no filter)".to_owned()
            } else {
                query.join(" ")
            }
        };
        let store = |s: &Option<String>| s.clone().unwrap_or_else(|| "(none)".to_owned());
        same(
            "operation",
            header.operation.clone(),
            wanted.operation.clone(),
        )?;
        same("store", header.base_url.clone(), wanted.base_url.clone())?;
        same("--store", store(&header.store), store(&wanted.store))?;
        same("query", listed(&header.query), listed(&wanted.query))?;
        same(
            "output",
            format!("{:?}", header.format).to_lowercase(),
            format!("{:?}", wanted.format).to_lowercase(),
        )?;
        same(
            "--per-page",
            header.per_page.to_string(),
            wanted.per_page.to_string(),
        )?;
        if (header.output_device, header.output_inode)
            != (wanted.output_device, wanted.output_inode)
        {
            return Err(CliError::usage(format!(
                "standard output is not the file the export of {} writes to (another file: \
                 device {} inode {}, not device {} inode {}); nothing was cut or written. Append \
                 to the export's own output (`>> export.ndjson`), or give --resume a new file \
                 name to export into this one",
                path.display(),
                wanted.output_device,
                wanted.output_inode,
                header.output_device,
                header.output_inode
            )));
        }
        Ok(header)
    }

    fn append<T: Serialize>(&mut self, line: &T) -> Result<(), CliError> {
        let (text, sum) = sealed(&self.chain, line)?;
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| io_error(&self.path, "cannot write the journal", e))?;
        self.chain = sum;
        Ok(())
    }

    /// Records that a page is on the output: the export's state after it, the hash of what the
    /// export has written, and its records' keys.
    pub fn page_written(
        &mut self,
        consistency: &Consistency,
        keys: Vec<String>,
    ) -> Result<(), CliError> {
        let output = self
            .output
            .metadata()
            .map_err(|e| CliError::other(format!("standard output: {e}")))?
            .len();
        let start = self.hashed_to;
        hash_range(
            &mut self.reader,
            &mut self.hasher,
            start,
            output.saturating_sub(start),
        )
        .map_err(|e| CliError::other(format!("cannot read the output back: {e}")))?;
        self.hashed_to = output.max(start);
        let output_sha256 = hex::encode(self.hasher.clone().finalize());
        self.append(&PageLine {
            checkpoint: consistency.checkpoint(),
            output,
            output_sha256,
            keys,
        })
    }

    /// Records that the export finished.
    pub fn finished(&mut self, report: &ConsistencyReport) -> Result<(), CliError> {
        self.append(&DoneLine {
            done: true,
            records: report.yielded,
        })
    }

    /// The journal's path, as the user gave it.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_the_builders_set_filters_without_client_or_pages() {
        let debug = r#"ListProducts { client: Client { baseurl: "http://x", inner: Inner { interceptor: Some("..") } }, category: Ok(None), keyword: Ok(Some("a, \"b\" (c")), page: Ok(Some(3)), per_page: Ok(Some(60)), status: Ok(Some(Sale)) }"#;
        assert_eq!(
            query_of(debug),
            [
                r#"keyword="a, \"b\" (c""#.to_owned(),
                "status=Sale".to_owned()
            ]
        );
        assert!(query_of("ListThings { client: Client { }, page: Ok(None) }").is_empty());
    }

    #[test]
    fn a_sealed_line_is_read_back_and_an_edited_one_is_not() {
        let (text, sum) = sealed(
            "",
            &DoneLine {
                done: true,
                records: 3,
            },
        )
        .unwrap();
        let line = text.trim_end();
        assert_eq!(unsealed("", line).map(|(_, s)| s), Some(sum.clone()));
        assert!(unsealed("", &line.replace("3", "4")).is_none());
        assert!(
            unsealed("other", line).is_none(),
            "chained to the line before"
        );
    }
}
