//! Building the result of `read_window` from a capture, within the read budget
//! (`docs/design/terminals.md`, read_window; `docs/design/tools.md`, Read budget).
//!
//! - On the normal screen the content is captured with `-J` (wrapped rows joined), trailing
//!   spaces and trailing empty lines removed, preceded by the history rows asked for.
//! - Under a full-screen program the screen is captured as displayed (row N of the content is
//!   row N of the screen), with the cursor unless the program hides it, and never history.
//! - The result, header included, holds at most the read budget. The history is cut from its
//!   start, at a character boundary (a line of 100000 characters spans history and screen once
//!   joined); the screen is never cut: a screen over the budget is refused, saying its size.

use super::texts::{NewSessionCause, created_header_short};
use crate::result::ReadBudget;

/// What a capture of a window gave, before the budget applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScreenCapture {
    /// A full-screen program shows its alternate screen.
    pub alternate: bool,
    /// The alternate screen is on with bash in the foreground: left on by a program that ended
    /// (killed, crashed) without leaving it; bash never turns it on itself.
    pub left_on: bool,
    /// The first line read continues a line begun above it, in the history not read (tmux marks
    /// the row above as wrapped).
    pub continued: bool,
    /// The cursor, counted from 1 (row, column), `None` when the program hides it.
    pub cursor: Option<(u32, u32)>,
    /// The rows of history asked for.
    pub rows_asked: u32,
    /// The rows of history the content holds (at most the ones asked; 0 under a full-screen
    /// program).
    pub rows: u32,
    /// The screen alone, as displayed, one line per row, trimmed: what the budget must hold.
    pub screen: String,
    /// The content returned: joined history and screen (normal screen), or the screen as displayed.
    pub content: String,
}

/// A screen the read budget can not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScreenTooLarge {
    /// The size of the screen alone, in bytes.
    pub bytes: usize,
}

/// Removes trailing spaces of each line and trailing empty lines.
pub(crate) fn trim_capture(raw: &str) -> String {
    let mut lines: Vec<&str> = raw.split('\n').map(|l| l.trim_end_matches(' ')).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines.join("\n")
}

fn header_line(parts: &[String]) -> String {
    if parts.is_empty() {
        String::new()
    } else {
        format!("[{}]\n", parts.join("; "))
    }
}

/// The header parts that do not depend on a cut.
fn fixed_parts(created: Option<NewSessionCause>, c: &ScreenCapture) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(origin) = created {
        parts.push(created_header_short(origin).to_string());
    }
    if c.alternate {
        let what = if c.left_on {
            "full-screen mode left on by a program that ended"
        } else {
            "full-screen program"
        };
        parts.push(match c.cursor {
            Some((row, col)) => format!("{what}, cursor at row {row}, column {col}"),
            None => format!("{what}, cursor hidden"),
        });
        // Left on, the fix list_windows gives too, whether history was asked or not.
        match (c.left_on, c.rows_asked > 0) {
            (true, true) => parts.push("no history until `tput rmcup` leaves it".to_string()),
            (true, false) => parts.push("`tput rmcup` leaves it".to_string()),
            (false, true) => parts.push(
                "no history: it belongs to the terminal before the program started".to_string(),
            ),
            (false, false) => {}
        }
    }
    parts
}

/// The phrase saying that the first line read is the end of a longer one.
pub(crate) const CONTINUED: &str = "the first line begins above, in history";

/// The text of `read_window` for a capture, or the screen's size when the budget can not hold
/// it. `created`: the call created the session.
pub(crate) fn render(
    created: Option<NewSessionCause>,
    c: &ScreenCapture,
    budget: ReadBudget,
) -> Result<String, ScreenTooLarge> {
    let budget = budget.bytes();
    let mut parts = fixed_parts(created, c);
    let history = !c.alternate && c.rows_asked > 0;
    let mut whole = parts.clone();
    if history {
        whole.push(format!("{} rows of history", c.rows));
    }
    if c.continued {
        whole.push(CONTINUED.to_string());
    }
    let header = header_line(&whole);
    if header.len() + c.content.len() <= budget {
        return Ok(header + &c.content);
    }
    let screen_header = header_line(&parts);
    if screen_header.len() + c.screen.len() > budget || !history {
        return Err(ScreenTooLarge {
            bytes: c.screen.len(),
        });
    }
    // Cut the history from its start: lines can be counted then, not rows, so no number.
    parts.push(format!(
        "history cut at its start to fit the read budget ({})",
        ReadBudget::new(budget).map_or_else(|_| format!("{budget} bytes"), |b| b.to_string())
    ));
    let header = header_line(&parts);
    let room = budget.saturating_sub(header.len());
    if room < c.screen.len() {
        return Err(ScreenTooLarge {
            bytes: c.screen.len(),
        });
    }
    let mut start = c.content.len().saturating_sub(room);
    while !c.content.is_char_boundary(start) {
        start += 1;
    }
    // A cut on a line break starts with the next line, not with an empty one.
    if c.content[start..].starts_with('\n') {
        start += 1;
    }
    Ok(header + &c.content[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(rows_asked: u32, rows: u32, screen: &str, content: &str) -> ScreenCapture {
        ScreenCapture {
            alternate: false,
            left_on: false,
            continued: false,
            cursor: None,
            rows_asked,
            rows,
            screen: screen.to_string(),
            content: content.to_string(),
        }
    }

    #[test]
    fn trims() {
        assert_eq!(trim_capture("a  \nb\n  \n\n"), "a\nb");
        assert_eq!(trim_capture(""), "");
        assert_eq!(trim_capture("\n\nx"), "\n\nx");
    }

    #[test]
    fn headers() {
        let b = ReadBudget::DEFAULT;
        assert_eq!(
            render(None, &normal(0, 0, "$ ls", "$ ls"), b).unwrap(),
            "$ ls"
        );
        assert_eq!(
            render(None, &normal(5, 2, "$", "a\nb\n$"), b).unwrap(),
            "[2 rows of history]\na\nb\n$"
        );
        assert_eq!(
            render(Some(NewSessionCause::New), &normal(0, 0, "$", "$"), b).unwrap(),
            "[your terminals did not exist: a fresh main was just created]\n$"
        );
        let full = ScreenCapture {
            alternate: true,
            left_on: false,
            continued: false,
            cursor: Some((3, 7)),
            rows_asked: 10,
            rows: 0,
            screen: "x".into(),
            content: "x".into(),
        };
        assert_eq!(
            render(None, &full, b).unwrap(),
            "[full-screen program, cursor at row 3, column 7; no history: it belongs to the terminal before the program started]\nx"
        );
        let hidden = ScreenCapture {
            cursor: None,
            rows_asked: 0,
            ..full.clone()
        };
        assert_eq!(
            render(None, &hidden, b).unwrap(),
            "[full-screen program, cursor hidden]\nx"
        );
        let left_on = ScreenCapture {
            left_on: true,
            ..full.clone()
        };
        assert_eq!(
            render(None, &left_on, b).unwrap(),
            "[full-screen mode left on by a program that ended, cursor at row 3, column 7; no \
             history until `tput rmcup` leaves it]\nx"
        );
        let left_on = ScreenCapture {
            rows_asked: 0,
            ..left_on
        };
        assert_eq!(
            render(None, &left_on, b).unwrap(),
            "[full-screen mode left on by a program that ended, cursor at row 3, column 7; `tput \
             rmcup` leaves it]\nx"
        );
        let continued = normal(0, 0, "xx\n$", "xx\n$");
        assert_eq!(
            render(
                None,
                &ScreenCapture {
                    continued: true,
                    ..continued
                },
                b
            )
            .unwrap(),
            format!("[{CONTINUED}]\nxx\n$")
        );
    }

    #[test]
    fn cuts_history_at_a_character_boundary() {
        let budget = ReadBudget::new(20 * 1024).unwrap();
        // A line of 100000 characters, 2-byte ones, spanning history and screen.
        let line = "é".repeat(100_000);
        let screen = "é".repeat(200 * 24);
        let text = render(None, &normal(1000, 1000, &screen, &line), budget).unwrap();
        assert!(text.len() <= budget.bytes(), "{}", text.len());
        let (header, body) = text.split_once('\n').unwrap();
        assert_eq!(
            header,
            "[history cut at its start to fit the read budget (20 KiB)]"
        );
        assert!(body.chars().all(|c| c == 'é'));
        assert!(body.len() >= screen.len());
        assert!(budget.bytes() - text.len() < 2);
    }

    #[test]
    fn a_cut_on_a_line_break_starts_with_the_next_line() {
        let budget = ReadBudget::new(20 * 1024).unwrap();
        let header = "[history cut at its start to fit the read budget (20 KiB)]\n";
        let screen = "s".repeat(100);
        // The room left by the header: the cut lands on the line break before `kept`.
        let room = budget.bytes() - header.len();
        let kept = format!("{}\n{screen}", "k".repeat(room - screen.len() - 2));
        let content = format!("{}\n{kept}", "h".repeat(30_000));
        assert_eq!(content.len() - room, 30_000);
        let text = render(None, &normal(1000, 1000, &screen, &content), budget).unwrap();
        assert_eq!(text, format!("{header}{kept}"));
    }

    #[test]
    fn refuses_a_screen_over_the_budget() {
        let budget = ReadBudget::new(20 * 1024).unwrap();
        let screen = "a\u{301}\u{302}\u{303}".repeat(200 * 24);
        let err = render(None, &normal(0, 0, &screen, &screen), budget).unwrap_err();
        assert_eq!(err.bytes, screen.len());
        let err = render(
            None,
            &normal(10, 10, &screen, &format!("x\n{screen}")),
            budget,
        )
        .unwrap_err();
        assert_eq!(err.bytes, screen.len());
    }

    #[test]
    fn the_longest_header_fits_the_minimum_budget() {
        // A screen of 4-byte characters, 200x24, with its line breaks: 19223 bytes, under the
        // worst header; ReadBudget::MIN must hold it (with the header: 19349 bytes).
        let row = "\u{1d538}".repeat(200); // 4 bytes, one cell each
        let screen = vec![row; 24].join("\n");
        assert_eq!(screen.len(), 19223);
        let full = ScreenCapture {
            alternate: true,
            left_on: true,
            continued: false,
            cursor: Some((24, 200)),
            rows_asked: 10_000,
            rows: 0,
            screen: screen.clone(),
            content: screen.clone(),
        };
        let text = render(None, &full, ReadBudget::new(ReadBudget::MIN).unwrap()).unwrap();
        let header = text.split_once('\n').unwrap().0;
        assert!(
            19223 + header.len() < 19349,
            "header of {} bytes: {header}",
            header.len()
        );
        let normal_worst = normal(
            10_000,
            10_000,
            &screen,
            &format!("{}\n{screen}", "x".repeat(50_000)),
        );
        let text = render(
            Some(NewSessionCause::Restarted),
            &normal_worst,
            ReadBudget::new(ReadBudget::MIN).unwrap(),
        )
        .unwrap();
        let header = text.split_once('\n').unwrap().0;
        assert!(
            19223 + header.len() < 19349,
            "header of {} bytes: {header}",
            header.len()
        );
    }
}
