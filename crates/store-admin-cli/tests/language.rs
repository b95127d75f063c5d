//! The language of the service's messages: `--language`, `STORE_ADMIN_LANGUAGE`, a profile's
//! `language`, else English for an English locale (`LC_ALL`, else `LC_MESSAGES`, else `LANG`),
//! else none (the service's default, Arabic). Against the embedded sandbox, whose messages follow
//! `Accept-Language` as the service's do.

use std::path::Path;

use crate::common::{run, sandbox, store_admin};

/// The sandbox refuses a language it does not offer with a 422 naming the field.
const ADD_UNKNOWN: &[&str] = &["languages", "add", "--locale", "zzz"];
const ENGLISH: &str = "locales.0.iso_code: The locales.0.iso_code field is invalid.";
const ARABIC: &str = "locales.0.iso_code: حقل locales.0.iso_code غير صالحٍ";

/// The field error the sandbox answered `command` with (exit 3), in whichever language.
fn field_error(command: assert_cmd::Command) -> String {
    let (_, err) = run(command, 3);
    err.lines()
        .find(|line| line.trim_start().starts_with("locales.0.iso_code:"))
        .unwrap_or_else(|| panic!("a field error: {err}"))
        .trim()
        .to_string()
}

fn add_unknown(env: &[(&str, &str)], flags: &[&str]) -> String {
    let mut command = sandbox(flags);
    command.args(ADD_UNKNOWN);
    for (name, value) in env {
        command.env(name, value);
    }
    field_error(command)
}

#[test]
fn without_a_language_or_an_english_locale_the_service_answers_in_arabic() {
    assert_eq!(add_unknown(&[], &[]), ARABIC);
    assert_eq!(add_unknown(&[("LANG", "C")], &[]), ARABIC);
    assert_eq!(add_unknown(&[("LANG", "ar_SA.UTF-8")], &[]), ARABIC);
    assert_eq!(add_unknown(&[("LANG", "fr_FR.UTF-8")], &[]), ARABIC);
}

#[test]
fn an_english_locale_asks_for_english() {
    assert_eq!(add_unknown(&[("LANG", "en_US.UTF-8")], &[]), ENGLISH);
    assert_eq!(
        add_unknown(&[("LC_MESSAGES", "en_GB.UTF-8"), ("LANG", "C")], &[]),
        ENGLISH
    );
    // LC_ALL comes first.
    assert_eq!(
        add_unknown(&[("LC_ALL", "C"), ("LANG", "en_US.UTF-8")], &[]),
        ARABIC
    );
}

#[test]
fn the_flag_and_its_variable_win_over_the_locale() {
    assert_eq!(add_unknown(&[], &["--language", "en"]), ENGLISH);
    assert_eq!(
        add_unknown(&[("LANG", "C")], &["--language", "en-US"]),
        ENGLISH
    );
    assert_eq!(
        add_unknown(&[("LANG", "en_US.UTF-8")], &["--language", "ar"]),
        ARABIC
    );
    assert_eq!(
        add_unknown(
            &[("STORE_ADMIN_LANGUAGE", "en"), ("LANG", "ar_SA.UTF-8")],
            &[]
        ),
        ENGLISH
    );
    // A global option: after the command too.
    let mut command = sandbox(ADD_UNKNOWN);
    command.args(["--language", "en"]);
    assert_eq!(field_error(command), ENGLISH);
}

fn with_profile(dir: &Path, language: &str) -> assert_cmd::Command {
    let app = dir.join("store-admin");
    std::fs::create_dir_all(&app).unwrap();
    std::fs::write(
        app.join("config.toml"),
        format!("default_profile = \"play\"\n[profiles.play]\nsandbox = true\nlanguage = \"{language}\"\n"),
    )
    .unwrap();
    let mut command = store_admin();
    command.env("XDG_CONFIG_HOME", dir);
    command
}

#[test]
fn a_profile_gives_the_language_under_the_flag_and_over_the_locale() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = with_profile(dir.path(), "en");
    command.env("LANG", "ar_SA.UTF-8").args(ADD_UNKNOWN);
    assert_eq!(field_error(command), ENGLISH);

    let mut command = with_profile(dir.path(), "en");
    command.args(["--language", "ar"]).args(ADD_UNKNOWN);
    assert_eq!(field_error(command), ARABIC);

    let mut command = with_profile(dir.path(), "en us");
    command.args(ADD_UNKNOWN);
    let (_, err) = run(command, 2);
    assert!(err.contains("profile language"), "{err}");
    assert!(err.contains("is not a language tag"), "{err}");
}

#[test]
fn a_value_that_is_not_a_language_tag_is_a_usage_error() {
    for hostile in ["en\r\nX-Injected: 1", "en\nX: y", "en_US", "", "*"] {
        let mut command = sandbox(&["--language", hostile]);
        command.args(["orders", "list"]);
        let (out, err) = run(command, 2);
        assert!(out.is_empty(), "{hostile:?}: {out}");
        assert!(err.contains("is not a language tag"), "{hostile:?}: {err}");

        let mut command = sandbox(&["orders", "list"]);
        command.env("STORE_ADMIN_LANGUAGE", hostile);
        let (_, err) = run(command, 2);
        assert!(err.contains("is not a language tag"), "{hostile:?}: {err}");
    }
}
