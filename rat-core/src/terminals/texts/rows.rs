//! The texts of a command's rows read by number: the hint of a cut answer naming the rows it
//! left out, and read_window's `output_rows` (`docs/design/output.md`, Reading rows by
//! number). Part of [`super`], reached as `texts::...`.

use crate::result::ReadBudget;
use crate::terminals::transcript::HISTORY_LIMIT;

/// `rows 1 to 61`, or `row 5` alone.
fn span(from: u64, to: u64) -> String {
    if from == to {
        format!("row {from}")
    } else {
        format!("rows {from} to {to}")
    }
}

/// The `output_rows` argument reading rows `from` to `to`, as a call writes it.
fn argument(from: u64, to: u64) -> String {
    format!("output_rows {{\"from\": {from}, \"to\": {to}}}")
}

/// Added to the header of a cut answer: the read_window call showing exactly the rows it left
/// out, `left.0` to `left.1` (numbered from the command's first row), or, when they are over
/// the read budget, the last of them that fit it (from `fits`); `in_full`: the answer showed
/// only the end of the last row, and the call shows every row, that one whole.
pub(crate) fn reach_rows(
    window: &str,
    left: (u64, u64),
    fits: u64,
    in_full: bool,
    budget: &ReadBudget,
) -> String {
    let (from, to) = left;
    if fits > from {
        return format!(
            "; read_window {window} with {} shows the last {} of the others, which fit the read \
             budget ({budget})",
            argument(fits, to),
            to - fits + 1
        );
    }
    let shows = match (in_full, from == to) {
        (false, _) => "the others",
        (true, true) => "it in full",
        (true, false) => "them in full",
    };
    format!(
        "; read_window {window} with {} shows {shows}",
        argument(from, to)
    )
}

/// What read_window's `output_rows` read: which command's rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowsRead<'a> {
    /// The window, as the call names it.
    pub window: &'a str,
    /// The first row shown.
    pub from: u64,
    /// The last row shown.
    pub to: u64,
    /// The command's last row.
    pub last: u64,
    /// The command ended (else it runs, and prints more).
    pub ended: bool,
}

/// The header of read_window's `output_rows` answer, before the rows: which rows of which
/// command; `kept_from`: rows were asked before the first one kept, this one (the others went
/// past the history's limit); `past_end`: rows were asked after the last; `cut`: the first
/// rows asked, `cut.0` to `cut.1`, are over the read budget, and left out, and those from
/// `cut.2` on fit it; `end_only`: the
/// last row alone is over the read budget, and only its end is shown.
pub(crate) fn rows_read(
    read: RowsRead<'_>,
    kept_from: Option<u64>,
    past_end: bool,
    cut: Option<(u64, u64, u64, ReadBudget)>,
    end_only: Option<ReadBudget>,
) -> String {
    let RowsRead {
        window,
        from,
        to,
        last,
        ended,
    } = read;
    let whose = if ended {
        format!("of the {last} the last command in {window} printed")
    } else {
        format!("of the {last} printed so far by the command running in {window}")
    };
    let mut header = format!("[{} {whose}", span(from, to));
    if let Some(first) = kept_from {
        header.push_str(&format!(
            "; {} went past the history's {HISTORY_LIMIT} rows",
            span(1, first - 1)
        ));
    }
    if past_end {
        let none = if ended { "none" } else { "none yet" };
        header.push_str(&format!("; there is {none} after row {last}"));
    }
    if let Some((a, b, fits, budget)) = cut {
        let shows = if fits > a {
            format!("shows the last {} of them", b - fits + 1)
        } else {
            "shows them".to_string()
        };
        header.push_str(&format!(
            "; {} are over the read budget ({budget}) and left out: read_window {window} with {} \
             {shows}",
            span(a, b),
            argument(fits.max(a), b)
        ));
    }
    if let Some(budget) = end_only {
        header.push_str(&format!(
            "; row {to} alone is over the read budget ({budget}): only its end is shown"
        ));
    }
    header.push(']');
    header
}

/// `output_rows` asked of a window where no command's rows are known from the shell's marks.
pub(crate) fn no_output_rows(window: &str) -> String {
    format!(
        "No command's output rows are known in {window}: output_rows reads the rows of the \
         window's last command (or the one running) as the shell's marks frame them, and no \
         command was seen since rat began following the window, at the first input sent to it \
         through rat. Nothing was read: read_window {window} with scrollback_rows reads the \
         history instead."
    )
}

/// `output_rows` asked of a command whose marks do not frame its rows.
pub(crate) fn output_rows_unframed(window: &str) -> String {
    format!(
        "The rows of the last command in {window} are not known from the shell's marks (part \
         of its output was lost, or its stdout or stderr was not the terminal). Nothing was \
         read: read_window {window} with scrollback_rows reads the history instead."
    )
}

/// `output_rows` asked while a full-screen program holds the screen.
pub(crate) fn output_rows_full_screen(window: &str) -> String {
    format!(
        "A full-screen program holds the screen of {window}: what it shows is a screen, not \
         rows. Nothing was read: read_window {window} without output_rows shows it."
    )
}

/// `output_rows` asked of a command that printed nothing.
pub(crate) fn output_rows_none(window: &str, ended: bool) -> String {
    if ended {
        format!("The last command in {window} printed nothing.")
    } else {
        format!("The command running in {window} has printed nothing yet.")
    }
}

/// `output_rows` starting past the command's last row.
pub(crate) fn output_rows_past_end(window: &str, from: u64, last: u64, ended: bool) -> String {
    let printed = if ended {
        format!("the last command in {window} printed {last}")
    } else {
        format!("the command running in {window} has printed {last} so far")
    };
    format!(
        "output_rows starts at row {from}, past the last: {printed}. Nothing was read: \
         read_window {window} with {} shows them.",
        argument(1, last)
    )
}

/// `output_rows` asking only rows gone past the history's limit.
pub(crate) fn output_rows_gone(window: &str, first: u64, last: u64) -> String {
    format!(
        "{} went past the history's {HISTORY_LIMIT} rows before they could be read: the \
         command's rows kept in {window} are {first} to {last}. Nothing was read: read_window \
         {window} with {} shows the first of them.",
        span(1, first - 1),
        argument(first, first.saturating_add(39).min(last))
    )
}
