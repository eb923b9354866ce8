//! Running rat-tool and making its output comparable: temporary paths, fingerprints, dates
//! and ports replaced by placeholders.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;
use std::process::Command;

/// What a run of rat-tool gave.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The exit status, stdout and stderr, as one text for a snapshot.
    pub fn text(&self) -> String {
        format!(
            "exit status {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs rat-tool with `args`.
pub fn rat_tool<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = Command::new(env!("CARGO_BIN_EXE_rat-tool"))
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Replaces `tmp` by `[TMP]`, each SHA-256 fingerprint by `[FINGERPRINT]`, each
/// `YYYY-MM-DD HH:MM:SS UTC (N days left)` by `[DATE] ([N] days left)`.
pub fn redact(text: &str, tmp: &Path) -> String {
    let text = text.replace(&tmp.display().to_string(), "[TMP]");
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if is_fingerprint(&chars[i..]) {
            out += "[FINGERPRINT]";
            i += 95;
        } else if is_date(&chars[i..]) {
            out += "[DATE]";
            i += 23;
            let rest: String = chars[i..].iter().collect();
            if let Some(after) = rest.strip_prefix(" (")
                && let Some(end) = after.find(" days left)")
                && after[..end].chars().all(|c| c.is_ascii_digit())
            {
                out += " ([N] days left)";
                i += 2 + end + " days left)".len();
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn is_fingerprint(s: &[char]) -> bool {
    s.len() >= 95
        && (0..95).all(|i| {
            if i % 3 == 2 {
                s[i] == ':'
            } else {
                s[i].is_ascii_digit() || ('A'..='F').contains(&s[i])
            }
        })
}

fn is_date(s: &[char]) -> bool {
    let pattern = "dddd-dd-dd dd:dd:dd UTC";
    s.len() >= pattern.len()
        && pattern.chars().zip(s).all(|(p, c)| {
            if p == 'd' {
                c.is_ascii_digit()
            } else {
                p == *c
            }
        })
}
