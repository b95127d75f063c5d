//! Shell completion past the first word (issue 25, item 4): the script that `store-admin
//! completions SHELL` prints is sourced into a real bash, whose completion function is called as
//! bash calls it on TAB; zsh and fish are driven through the same protocol their scripts use
//! (the binary run with `COMPLETE=SHELL` and the words typed).

use std::process::Command;

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_store-admin");

fn script(shell: &str) -> String {
    let mut cmd = common::store_admin();
    cmd.args(["completions", shell]);
    let (stdout, stderr) = common::run(cmd, 0);
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

/// What bash offers for the line `words` with the cursor at the end of the last word: the
/// script is sourced, COMP_WORDS/COMP_CWORD set, and the function `complete -p` names is called
/// with the command, the current word and the previous one, as bash does.
fn bash_complete(words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let line = words.join(" ");
    let program = format!(
        r#"source <("$BIN" completions bash) || exit 3
function=$(complete -p store-admin | sed -E 's/.* -F ([^ ]+) .*/\1/')
[ -n "$function" ] || exit 4
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE='{line}'
COMP_POINT=${{#COMP_LINE}}
COMP_TYPE=9
"$function" store-admin "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = quoted.join(" "),
    );
    let output = Command::new("bash")
        .arg("-c")
        .arg(&program)
        .env("BIN", BIN)
        .env_remove("COMPLETE")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "bash failed ({:?}): {}\n{stdout}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// What the binary answers a zsh or fish script for `words` (the last one being completed).
fn protocol_complete(shell: &str, words: &[&str]) -> Vec<String> {
    let output = Command::new(BIN)
        .env("COMPLETE", shell)
        .env("_CLAP_COMPLETE_INDEX", (words.len() - 1).to_string())
        .env("_CLAP_IFS", "\n")
        .arg("--")
        .args(words)
        .output()
        .expect("store-admin runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| {
            // zsh: `value:help`; fish: `value\thelp`.
            l.split(['\t', ':']).next().unwrap_or_default().to_owned()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn the_scripts_are_small() {
    for shell in ["bash", "zsh", "fish"] {
        let text = script(shell);
        assert!(
            text.len() < 4096,
            "the {shell} script is {} bytes",
            text.len()
        );
        assert!(text.contains(BIN), "the {shell} script runs this binary");
    }
}

#[test]
fn bash_completes_command_words_past_the_first() {
    let groups = bash_complete(&["store-admin", "ord"]);
    assert!(groups.contains(&"orders".to_string()), "{groups:?}");
    let verbs = bash_complete(&["store-admin", "orders", "l"]);
    assert!(verbs.contains(&"list".to_string()), "{verbs:?}");
    // After global options too, and within a group whose name has a hyphen.
    let verbs = bash_complete(&["store-admin", "--sandbox", "customer-groups", ""]);
    assert!(verbs.contains(&"add".to_string()), "{verbs:?}");
    assert!(
        !verbs.contains(&"add-customers-to-group".to_string()),
        "hidden aliases are not offered: {verbs:?}"
    );
}

#[test]
fn bash_completes_flags_and_their_values() {
    let flags = bash_complete(&["store-admin", "orders", "list", "--sta"]);
    assert!(flags.contains(&"--status".to_string()), "{flags:?}");
    // A global option after the command is still completed.
    let flags = bash_complete(&["store-admin", "orders", "list", "--sand"]);
    assert!(flags.contains(&"--sandbox".to_string()), "{flags:?}");
    // The possible values of a closed set, and the known values of an open one.
    let formats = bash_complete(&["store-admin", "orders", "list", "-o", "nd"]);
    assert_eq!(formats, vec!["ndjson".to_string()]);
    let mut line = vec!["store-admin"];
    line.extend(
        store_admin_cli::cli::command_for("update_shipment")
            .unwrap()
            .split(' '),
    );
    line.extend(["1", "--status", "deliv"]);
    let statuses = bash_complete(&line);
    assert!(statuses.contains(&"delivered".to_string()), "{statuses:?}");
}

#[test]
fn zsh_and_fish_complete_past_the_first_word() {
    for shell in ["zsh", "fish"] {
        let verbs = protocol_complete(shell, &["store-admin", "shipments", "get-tr"]);
        assert!(
            verbs.contains(&"get-tracking".to_string()),
            "{shell}: {verbs:?}"
        );
        let flags = protocol_complete(shell, &["store-admin", "orders", "list", "--per"]);
        assert!(
            flags.contains(&"--per-page".to_string()),
            "{shell}: {flags:?}"
        );
    }
}
