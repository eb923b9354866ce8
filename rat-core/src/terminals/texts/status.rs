//! How a window's last command exited, shown to agents: single commands, pipelines (failures
//! first), SIGPIPE, and relative times. What the hook records is in
//! [`crate::terminals::hook`].

/// SIGPIPE's exit status (128 + 13): a writer whose reader stopped early (`yes | head`).
const SIGPIPE_STATUS: i32 = 141;

pub(crate) use rat_wire::words::ago;

/// The commands of a pipeline before its last one that failed: (position from 1, status).
fn failures_before_last(statuses: &[i32]) -> Vec<(usize, i32)> {
    let before_last = &statuses[..statuses.len().saturating_sub(1)];
    before_last
        .iter()
        .enumerate()
        .filter(|(_, s)| **s != 0)
        .map(|(i, s)| (i + 1, *s))
        .collect()
}

fn joined(statuses: &[i32]) -> String {
    statuses
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

const SIGPIPE_NOTE: &str =
    "Status 141 is usually normal: SIGPIPE, its reader stopped early (as in yes | head).";

/// How the last command exited, for `wait_window`, after "the command finished 3s ago":
/// `, exit status 1.` for a single command or a pipeline whose commands before the last one
/// succeeded; for a pipeline whose earlier commands failed, those first, by position, then the
/// status of the pipeline, explained, then every status: failures first, as a model reading
/// "exit status 0" first anchors on it (`docs/design/prompts.md`, How a status is reported).
/// Status 141 is reported as usually normal only for a command before the last; nothing is added
/// for a single command, nor for a pipeline whose last command alone failed.
pub(crate) fn wait_exit(statuses: &[i32]) -> String {
    let Some(&last) = statuses.last() else {
        return ".".to_string();
    };
    let failures = failures_before_last(statuses);
    if failures.is_empty() {
        return format!(", exit status {last}.");
    }
    let n = statuses.len();
    let mut parts = Vec::new();
    for (k, (position, status)) in failures.iter().enumerate() {
        if k == 0 {
            parts.push(format!(
                "command {position} of its pipeline of {n} exited with status {status}"
            ));
        } else {
            parts.push(format!("command {position} with status {status}"));
        }
    }
    let mut text = format!(
        ": {}. The pipeline exits with the status of its last command, {last}, as bash reports it \
         (statuses, left to right: {}).",
        parts.join(", "),
        joined(statuses)
    );
    if failures.iter().any(|(_, s)| *s == SIGPIPE_STATUS) {
        text.push(' ');
        text.push_str(SIGPIPE_NOTE);
    }
    text
}

/// How the last command exited, for a line of `list_windows` (141 reported as usually normal only
/// for a command before the last, as in [`wait_exit`]):
/// `last command exited with status 1 (12s ago)`, or for a pipeline whose earlier commands
/// failed `last command exited with status 0, command 1 of its pipeline of 2 with 1 (statuses:
/// 1 0) (12s ago)`.
pub(crate) fn list_exit(statuses: &[i32], age: &str) -> String {
    let Some(&last) = statuses.last() else {
        return String::new();
    };
    let failures = failures_before_last(statuses);
    let sigpipe = |s: i32| {
        if s == SIGPIPE_STATUS {
            " (usually normal: SIGPIPE)"
        } else {
            ""
        }
    };
    if failures.is_empty() {
        return format!("last command exited with status {last} ({age} ago)");
    }
    let n = statuses.len();
    let parts: Vec<String> = failures
        .iter()
        .enumerate()
        .map(|(k, (position, status))| {
            if k == 0 {
                format!(
                    "command {position} of its pipeline of {n} with {status}{}",
                    sigpipe(*status)
                )
            } else {
                format!("command {position} with {status}{}", sigpipe(*status))
            }
        })
        .collect();
    format!(
        "last command exited with status {last}, {} (statuses: {}) ({age} ago)",
        parts.join(", "),
        joined(statuses)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times() {
        let cases = [
            (-3, "0s"),
            (0, "0s"),
            (12, "12s"),
            (59, "59s"),
            (60, "1m"),
            (3599, "59m"),
            (3600, "1h"),
            (7200, "2h"),
            (172_799, "47h"),
            (172_800, "2d"),
            (864_000, "10d"),
        ];
        for (seconds, text) in cases {
            assert_eq!(ago(seconds), text, "{seconds}");
        }
    }

    #[test]
    fn exits() {
        let cases: &[&[i32]] = &[
            &[0],
            &[1],
            &[141],
            &[1, 0],
            &[0, 1],
            &[141, 0],
            &[0, 141],
            &[1, 141],
            &[1, 2, 0],
            &[0, 3, 141, 1],
        ];
        let mut out = String::new();
        for statuses in cases {
            out.push_str(&format!(
                "{statuses:?}\n  wait: build: the command finished 3s ago{}\n  list: {}\n",
                wait_exit(statuses),
                list_exit(statuses, "12s")
            ));
        }
        insta::assert_snapshot!(out);
    }
}
