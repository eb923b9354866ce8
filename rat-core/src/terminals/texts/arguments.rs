//! The texts of a call whose arguments do not follow the tool's input schema: one frame, what
//! is wrong inside it (`crate::arguments` finds it). Part of [`super`], reached as
//! `texts::...`.

/// A call refused for its arguments: `problem` says what is wrong, `fix` what to call with
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

/// The fix of a call refused for an argument its schema lacks: `without "recursive"`.
pub(crate) fn fix_without(shown: &str) -> String {
    format!("without {shown}")
}

/// The fix of a call refused for an argument's value: `with scrollback_rows`.
pub(crate) fn fix_with(name: &str) -> String {
    format!("with {name}")
}

/// What a string argument allows.
pub(crate) const ALLOWED_STRING: &str = "a string";
/// What a boolean argument allows.
pub(crate) const ALLOWED_BOOLEAN: &str = "true or false";
/// What a list of strings allows.
pub(crate) const ALLOWED_STRINGS: &str = "a list of strings";
/// What a list of anything allows.
pub(crate) const ALLOWED_LIST: &str = "a list";
/// What an argument of a type the schema names allows, when the schema names no known type.
pub(crate) const ALLOWED_BY_SCHEMA: &str = "as its schema tells";

/// What a whole-number argument allows, with its bounds: `a whole number from 1 to 50`.
pub(crate) fn allowed_whole_number(low: Option<i128>, high: Option<i128>) -> String {
    match (low, high) {
        (Some(low), Some(high)) => format!("a whole number from {low} to {high}"),
        (Some(low), None) => format!("a whole number, {low} or more"),
        (None, Some(high)) => format!("a whole number, {high} or less"),
        (None, None) => "a whole number".into(),
    }
}

/// What an object argument allows: its fields, each with what it allows:
/// `an object of from (a whole number, 1 or more) and to (a whole number, 1 or more)`.
pub(crate) fn allowed_object(fields: &[(&str, String)]) -> String {
    let fields: Vec<String> = fields
        .iter()
        .map(|(name, allowed)| format!("{name} ({allowed})"))
        .collect();
    match fields.split_last() {
        None => "an object".into(),
        Some((last, [])) => format!("an object of {last}"),
        Some((last, rest)) => format!("an object of {} and {last}", rest.join(", ")),
    }
}

/// An object argument given a field it does not take, with those it takes.
pub(crate) fn field_unknown(name: &str, shown: &str, known: &[&str]) -> String {
    format!(
        "{name} takes {} only: {shown} is not one of them",
        known.join(" and ")
    )
}

/// A range argument whose `from` comes after its `to`.
pub(crate) fn range_reversed(name: &str, given: &str) -> String {
    format!("{name} must not end before it starts (from after to): {given} was given")
}

/// What an argument of another JSON type allows: `of type object`.
pub(crate) fn allowed_type(name: &str) -> String {
    format!("of type {name}")
}
