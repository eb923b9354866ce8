//! The texts of a call whose arguments do not follow the tool's input schema: one frame, what
//! is wrong inside it (`crate::arguments` finds it). Part of [`super`], reached as
//! `texts::...`.

/// A call refused for its arguments: `problem` tells what is wrong, `fix` what to call with
/// (`with scrollback_rows`, `without "recursive"`).
pub(crate) fn arguments_refused(tool: &str, problem: &str, fix: &str) -> String {
    format!(
        "The arguments of {tool} are not valid: {problem}. Nothing was done: call {tool} again \
         {fix} as its input schema tells."
    )
}

/// A required argument missing.
pub(crate) fn argument_missing(name: &str, allowed: &str) -> String {
    format!("{name} was not given: it is required, {allowed}")
}

/// An argument given a value it does not take.
pub(crate) fn argument_wrong(name: &str, allowed: &str, given: &str) -> String {
    format!("{name} must be {allowed}: {given} was given")
}

/// A list argument with an item of another type.
pub(crate) fn argument_item_wrong(
    name: &str,
    allowed: &str,
    item: usize,
    items: usize,
    given: &str,
) -> String {
    format!("{name} must be {allowed}: item {item} of {items} is {given}")
}

/// An argument the tool does not take, with those it takes.
pub(crate) fn argument_unknown(shown: &str, known: &[&str]) -> String {
    if known.is_empty() {
        format!("{shown} is not one of its arguments: it takes none")
    } else {
        format!(
            "{shown} is not one of its arguments, which are {}",
            known.join(", ")
        )
    }
}

/// Arguments that passed the check against the schema and still do not read as the tool's
/// input (the check lacks what the type refuses).
pub(crate) const ARGUMENTS_UNREAD: &str = "they do not read as its input";
