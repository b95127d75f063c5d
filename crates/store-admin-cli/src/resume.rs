//! `--all --resume FILE`: an export that continues where an interrupted one stopped.
//!
//! FILE is a journal of JSON lines: a header (the operation, the output format, the page size and
//! where the output stood when the export began), then one line per page written: the export's
//! [`Checkpoint`] after that page, the output's length once the page was written, and the keys of
//! the page's records. A line is appended after its page is on standard output, so a process
//! killed at any moment leaves a journal whose last whole line is a state the output reached;
//! output written after it (a page whose line was never written) is cut off when the export
//! resumes, and written again. The keys of every line keep records written before from being
//! written twice, whichever page they move to in the meantime.
//!
//! The output must be a file the journal can measure: standard output redirected to it, appended
//! to (`>> export.ndjson`) when resuming. NDJSON and CSV only: JSON and tables are written once
//! the last page is in, so there is nothing to continue.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use store_admin::{Checkpoint, Consistency, ConsistencyReport};

use crate::error::CliError;
use crate::global::Format;

/// The journal's first line.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Header {
    /// Which kind of file this is, and its version.
    store_admin_export: u32,
    operation: String,
    format: Format,
    per_page: u64,
    /// The output's length when the export began (it may append to an existing file).
    output_start: u64,
}

/// A line per page written.
#[derive(Debug, Serialize, Deserialize)]
struct PageLine {
    #[serde(flatten)]
    checkpoint: Checkpoint,
    /// The output's length once the page was written.
    output: u64,
    /// The keys of the page's records.
    keys: Vec<String>,
}

/// The last line, once the export has finished.
#[derive(Debug, Serialize, Deserialize)]
struct DoneLine {
    done: bool,
    records: u64,
}

/// An export's journal, open for appending.
pub struct Journal {
    path: PathBuf,
    file: File,
    /// Standard output, as a file (to measure it).
    output: File,
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
    /// The output format.
    pub format: Format,
    /// Records per page (pages are numbered by it).
    pub per_page: u64,
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

fn io_error(path: &Path, what: &str, error: std::io::Error) -> CliError {
    CliError::other(format!("{what} {}: {error}", path.display()))
}

impl Journal {
    /// Opens (or starts) the journal at `path` for `export`, checks the output against it, and
    /// returns it with the export's state to resume from.
    pub fn open(path: &Path, export: Export<'_>) -> Result<(Journal, Consistency), CliError> {
        if !matches!(export.format, Format::Ndjson | Format::Csv) {
            return Err(CliError::usage(
                "--resume needs --output ndjson or --output csv: JSON and tables are written once \
                 the last page is in, so an interrupted one has nothing to continue",
            ));
        }
        let mut output = standard_output()?;
        let length = output
            .metadata()
            .map_err(|e| CliError::other(format!("standard output: {e}")))?
            .len();
        let wanted = Header {
            store_admin_export: 1,
            operation: export.operation.to_owned(),
            format: export.format,
            per_page: export.per_page,
            output_start: length,
        };
        let exists = path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|e| io_error(path, "cannot open the journal", e))?;
        let mut journal = Journal {
            path: path.to_owned(),
            file: file.try_clone().map_err(|e| io_error(path, "journal", e))?,
            output: output
                .try_clone()
                .map_err(|e| CliError::other(format!("standard output: {e}")))?,
            written_before: 0,
            continues: false,
            finished: false,
        };
        let empty = !exists || file.metadata().map(|m| m.len() == 0).unwrap_or(true);
        if empty {
            journal.append(&wanted)?;
            return Ok((journal, Consistency::new()));
        }

        // Resuming: read the lines whole; a last line cut short by a kill is dropped.
        let mut reader = BufReader::new(&mut file);
        let mut header_text = String::new();
        reader
            .read_line(&mut header_text)
            .map_err(|e| io_error(path, "cannot read the journal", e))?;
        let header: Header = serde_json::from_str(&header_text).map_err(|_| {
            CliError::usage(format!(
                "{} is not a store-admin export journal (give --resume a new file name, or the \
                 journal of the export to continue)",
                path.display()
            ))
        })?;
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
        same(
            "operation",
            header.operation.clone(),
            wanted.operation.clone(),
        )?;
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
        let mut checkpoint = Checkpoint::default();
        let mut keys = Vec::new();
        let mut output_length = header.output_start;
        let mut whole = header_text.len() as u64;
        let mut line = String::new();
        loop {
            line.clear();
            let read = reader
                .read_line(&mut line)
                .map_err(|e| io_error(path, "cannot read the journal", e))?;
            if read == 0 || !line.ends_with('\n') {
                break;
            }
            if let Ok(done) = serde_json::from_str::<DoneLine>(&line)
                && done.done
            {
                journal.finished = true;
                journal.written_before = done.records;
                return Ok((journal, Consistency::new()));
            }
            let Ok(page) = serde_json::from_str::<PageLine>(&line) else {
                break;
            };
            whole += read as u64;
            checkpoint = page.checkpoint;
            output_length = page.output;
            keys.extend(page.keys);
        }
        // Drop a line cut short (the process was killed while writing it).
        file.set_len(whole)
            .map_err(|e| io_error(path, "cannot repair the journal", e))?;
        if length < output_length {
            return Err(CliError::usage(format!(
                "the output is shorter than {} says ({length} of {output_length} bytes): append \
                 to the export's output with `>>` (`>` empties it), or start again with a new \
                 --resume file",
                path.display()
            )));
        }
        // Records written after the last page line (their line never was): cut off, and written
        // again.
        output
            .set_len(output_length)
            .and_then(|()| output.seek(SeekFrom::End(0)).map(|_| ()))
            .map_err(|e| {
                CliError::other(format!("cannot cut the output back to the last page: {e}"))
            })?;
        journal.written_before = checkpoint.yielded;
        journal.continues = output_length > header.output_start;
        Ok((journal, Consistency::resume(checkpoint, keys)))
    }

    fn append<T: Serialize>(&mut self, line: &T) -> Result<(), CliError> {
        let mut text = serde_json::to_string(line)
            .map_err(|e| CliError::other(format!("cannot write the journal: {e}")))?;
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| io_error(&self.path, "cannot write the journal", e))
    }

    /// Records that a page is on the output: the export's state after it, and its records' keys.
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
        self.append(&PageLine {
            checkpoint: consistency.checkpoint(),
            output,
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
