//! The arguments of a tool call checked against the tool's input schema, then read into its
//! input type: the one check of a call's arguments, and the one place that words a refusal
//! (`texts::arguments_refused`). A mistyped argument is reported in the agent's terms (which
//! argument, what was given, what is allowed: `scrollback_rows must be a whole number, 0 or
//! more: -1 was given`), never in serde's (`invalid value: integer -1, expected u32`).
//!
//! Checked here: an argument the schema lacks (`additionalProperties: false`, every input's
//! `deny_unknown_fields`), a missing required argument, a value of another type, a number that
//! is not whole, or out of what the argument can hold (negative where it is unsigned, beyond 32
//! or 64 bits). Bounds a tool checks itself with a sentence of its own (`max_seconds` from 1 to
//! 50) are left to the tool. Whole numbers written as floats (`2.0`, `1e30`) are taken as the
//! whole numbers they are; an argument whose schema sets no bound above (`scrollback_rows`,
//! clamped to the history there is) takes any count; an optional argument given `null` is
//! taken as not given. An object argument's fields are checked the same way, named with it
//! (`output_rows.from`), and a range (fields `from` and `to`) must not end before it starts.

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

use crate::result::ToolResult;
use crate::terminals::texts::{self, ECHOED};

/// The arguments of `tool` checked against its input `schema`, with whole numbers written as
/// floats made integers and optional arguments given `null` taken out; or the result saying
/// the agent what is wrong: an argument the schema lacks first, then the first argument that
/// does not fit, in the order of the schema's properties.
pub fn check(
    tool: &str,
    schema: &Map<String, Value>,
    mut arguments: Map<String, Value>,
) -> Result<Map<String, Value>, ToolResult> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if schema.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(unknown) = arguments
            .keys()
            .find(|name| !properties.contains_key(*name))
    {
        let shown = shown(&Value::String(unknown.clone()));
        let known: Vec<&str> = properties.keys().map(String::as_str).collect();
        return Err(ToolResult::refused(
            texts::arguments_refused(
                tool,
                &texts::argument_unknown(&shown, &known),
                &texts::fix_without(&shown),
            ),
            "invalid arguments: one its schema lacks",
        ));
    }
    for (name, property) in properties {
        let is_required = required.contains(&name.as_str());
        let Some(value) = arguments.get_mut(name) else {
            if is_required {
                let problem = texts::argument_missing(name, &allowed(property));
                return Err(refused(tool, name, &problem));
            }
            continue;
        };
        if value.is_null() && !is_required {
            arguments.remove(name);
            continue;
        }
        if let Err(problem) = fit(name, property, value) {
            return Err(refused(tool, name, &problem));
        }
    }
    Ok(arguments)
}

/// `arguments`, checked by [`check`], read into `T`. Reading fails only where the schema says
/// less than the type (a check this module lacks): reported in the same frame, without serde's
/// reason, which names the value it could not read (the text of an input, keys spelling a password).
pub(crate) fn read<T: DeserializeOwned>(
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<T, ToolResult> {
    serde_json::from_value(Value::Object(arguments)).map_err(|_| {
        ToolResult::refused(
            texts::arguments_refused(tool, texts::ARGUMENTS_UNREAD, "with its arguments"),
            "invalid arguments: not read as its input",
        )
    })
}

fn refused(tool: &str, name: &str, problem: &str) -> ToolResult {
    ToolResult::refused(
        texts::arguments_refused(tool, problem, &texts::fix_with(name)),
        format!("invalid arguments: {name} does not fit its schema"),
    )
}

/// What `property` allows, in words: `a string`, `true or false`, `a whole number, 0 or more`,
/// `a whole number from 1 to 50`, `a list of strings`.
fn allowed(property: &Value) -> String {
    match property.get("type").and_then(Value::as_str) {
        Some("string") => texts::ALLOWED_STRING.into(),
        Some("boolean") => texts::ALLOWED_BOOLEAN.into(),
        Some("integer") => {
            let (low, high) = bounds(property);
            texts::allowed_whole_number(low, high)
        }
        Some("array") => match property.pointer("/items/type").and_then(Value::as_str) {
            Some("string") => texts::ALLOWED_STRINGS.into(),
            _ => texts::ALLOWED_LIST.into(),
        },
        Some("object") => match property.get("properties").and_then(Value::as_object) {
            Some(fields) => {
                let fields: Vec<(&str, String)> = fields
                    .iter()
                    .map(|(name, field)| (name.as_str(), allowed(field)))
                    .collect();
                texts::allowed_object(&fields)
            }
            None => texts::allowed_type("object"),
        },
        Some(other) => texts::allowed_type(other),
        None => texts::ALLOWED_BY_SCHEMA.into(),
    }
}

/// Checks the object `value` against `property`'s fields, as [`check`] checks the arguments:
/// a field it lacks, a required one missing, then each field; a range (`from` and `to`) must
/// not end before it starts.
fn fit_object(name: &str, property: &Value, value: &mut Map<String, Value>) -> Result<(), String> {
    let empty = Map::new();
    let fields = property
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    if property.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(unknown) = value.keys().find(|key| !fields.contains_key(*key))
    {
        let known: Vec<&str> = fields.keys().map(String::as_str).collect();
        return Err(texts::field_unknown(
            name,
            &shown(&Value::String(unknown.clone())),
            &known,
        ));
    }
    let required: Vec<&str> = property
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (field, schema) in fields {
        let path = format!("{name}.{field}");
        match value.get_mut(field) {
            None => {
                if required.contains(&field.as_str()) {
                    return Err(texts::argument_missing(&path, &allowed(schema)));
                }
            }
            Some(inner) => fit(&path, schema, inner)?,
        }
    }
    if let (Some(from), Some(to)) = (
        value.get("from").and_then(whole_number),
        value.get("to").and_then(whole_number),
    ) && from > to
    {
        return Err(texts::range_reversed(
            name,
            &shown(&Value::Object(value.clone())),
        ));
    }
    Ok(())
}

/// The bounds of an integer property as its schema states them.
fn bounds(property: &Value) -> (Option<i128>, Option<i128>) {
    let bound = |key: &str| property.get(key).and_then(Value::as_i64).map(i128::from);
    (bound("minimum"), bound("maximum"))
}

/// The range the argument's type holds (`format`), beyond which it can not be read; no bound
/// above for an argument whose schema gives no format.
fn holds(property: &Value) -> (i128, Option<i128>) {
    match property.get("format").and_then(Value::as_str) {
        Some("uint32") => (0, Some(i128::from(u32::MAX))),
        Some("uint64") => (0, Some(i128::from(u64::MAX))),
        Some("int32") => (i128::from(i32::MIN), Some(i128::from(i32::MAX))),
        Some("int64") => (i128::from(i64::MIN), Some(i128::from(i64::MAX))),
        _ => (bounds(property).0.unwrap_or(i128::from(i64::MIN)), None),
    }
}

/// Checks `value` against `property`, making a whole number written as a float an integer.
fn fit(name: &str, property: &Value, value: &mut Value) -> Result<(), String> {
    let wrong = |value: &Value| texts::argument_wrong(name, &allowed(property), &shown(value));
    match property.get("type").and_then(Value::as_str) {
        Some("string") if !value.is_string() => Err(wrong(value)),
        Some("boolean") if !value.is_boolean() => Err(wrong(value)),
        Some("integer") => {
            let Some(whole) = whole_number(value) else {
                return Err(wrong(value));
            };
            let (low, high) = holds(property);
            if whole < low && bounds(property).0.is_some() {
                return Err(wrong(value));
            }
            if whole < low || high.is_some_and(|high| whole > high) {
                // Out of what the argument holds, where the schema gives no bound: the range
                // it holds is what is allowed.
                let (schema_low, schema_high) = bounds(property);
                let low = schema_low.unwrap_or(low);
                let high = schema_high.or(high).unwrap_or(i128::MAX);
                return Err(texts::argument_wrong(
                    name,
                    &texts::allowed_whole_number(Some(low), Some(high)),
                    &shown(value),
                ));
            }
            // Beyond 64 bits with no bound above: the most a count can be, for a clamp.
            let number = i64::try_from(whole)
                .map(Number::from)
                .or_else(|_| u64::try_from(whole).map(Number::from))
                .unwrap_or_else(|_| Number::from(u64::MAX));
            *value = Value::Number(number);
            Ok(())
        }
        Some("array") => {
            let Some(items) = value.as_array() else {
                return Err(wrong(value));
            };
            let item_type = property.pointer("/items/type").and_then(Value::as_str);
            if item_type == Some("string")
                && let Some((i, item)) = items.iter().enumerate().find(|(_, v)| !v.is_string())
            {
                return Err(texts::argument_item_wrong(
                    name,
                    &allowed(property),
                    i + 1,
                    items.len(),
                    &shown(item),
                ));
            }
            Ok(())
        }
        Some("object") => match value.as_object_mut() {
            Some(object) => fit_object(name, property, object),
            None => Err(wrong(value)),
        },
        _ => Ok(()),
    }
}

/// A JSON number that is a whole number, as written or as a float without a fraction (beyond
/// 128 bits, saturated: only its sign matters then).
fn whole_number(value: &Value) -> Option<i128> {
    let number = value.as_number()?;
    if let Some(i) = number.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = number.as_u64() {
        return Some(i128::from(u));
    }
    let f = number.as_f64()?;
    (f.is_finite() && f.fract() == 0.0).then_some(f as i128)
}

/// `value` as JSON, cut after [`ECHOED`] characters with its length reported: a refusal repeats
/// what it refuses without sending a huge value back into the agent's context.
fn shown(value: &Value) -> String {
    let json = value.to_string();
    let count = json.chars().count();
    if count <= ECHOED {
        return json;
    }
    let start: String = json.chars().take(ECHOED).collect();
    format!("{start}... ({count} characters)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(tool: &str, args: Value) -> String {
        let Value::Object(map) = args else {
            unreachable!()
        };
        // The schemas as rat-wire holds them, the table's (tests/wire.rs).
        let schema = &rat_wire::tool::find(tool).expect("a tool").input_schema;
        match check(tool, schema, map) {
            Ok(map) => format!("ok {}", Value::Object(map)),
            Err(r) => r.text,
        }
    }

    #[test]
    fn every_argument_says_what_is_allowed() {
        let cases = [
            (
                "read_window",
                json!({"window": "main", "scrollback_rows": -1}),
            ),
            (
                "read_window",
                json!({"window": "main", "scrollback_rows": 1.5}),
            ),
            (
                "read_window",
                json!({"window": "main", "scrollback_rows": "10"}),
            ),
            ("read_window", json!({"window": 5})),
            (
                "read_window",
                json!({"window": "main", "output_rows": {"from": 62, "to": 61}}),
            ),
            (
                "read_window",
                json!({"window": "main", "output_rows": {"from": 0, "to": 61}}),
            ),
            (
                "read_window",
                json!({"window": "main", "output_rows": {"from": 1}}),
            ),
            (
                "read_window",
                json!({"window": "main", "output_rows": {"from": 1, "to": 2, "last": 3}}),
            ),
            (
                "read_window",
                json!({"window": "main", "output_rows": "1-61"}),
            ),
            (
                "read_window",
                json!({"window": "main", "output_rows": {"from": 1, "to": "61"}}),
            ),
            ("read_window", json!({})),
            ("send_text", json!({"window": "main", "text": "ls"})),
            (
                "send_text",
                json!({"window": "main", "text": "ls", "enter": "yes"}),
            ),
            ("send_keys", json!({"window": "main", "keys": "Enter"})),
            ("send_keys", json!({"window": "main", "keys": ["a", 5]})),
            ("wait_window", json!({"window": "main", "max_seconds": -1})),
            (
                "wait_window",
                json!({"window": "main", "max_seconds": 10_000_000_000u64}),
            ),
            ("read_file", json!({"path": "/x", "start_line": 1e30})),
            ("read_file", json!({"path": "/x", "max_lines": -5})),
            ("read_file", json!({"path": "/x", "line_numbers": 1})),
            ("write_file", json!({"path": "/x"})),
            ("create_window", json!({"name": null})),
            ("list_windows", json!({"x": 1})),
            ("read_file", json!({"path": "/x", "recursive": true})),
            (
                "write_file",
                json!({"path": "/x", "content": ["x".repeat(100)]}),
            ),
        ];
        let out: Vec<String> = cases
            .into_iter()
            .map(|(tool, args)| format!("{tool} {args}\n  {}", text(tool, args.clone())))
            .collect();
        insta::assert_snapshot!(out.join("\n"));
    }

    #[test]
    fn whole_numbers_pass_made_integers() {
        assert_eq!(
            text(
                "read_window",
                json!({"window": "main", "scrollback_rows": 9_223_372_036_854_775_808u64})
            ),
            r#"ok {"window":"main","scrollback_rows":9223372036854775808}"#
        );
        assert_eq!(
            text(
                "read_window",
                json!({"window": "main", "scrollback_rows": 1e30})
            ),
            r#"ok {"window":"main","scrollback_rows":18446744073709551615}"#
        );
        assert_eq!(
            text(
                "read_file",
                json!({"path": "/x", "start_line": -2.0, "max_lines": null})
            ),
            r#"ok {"path":"/x","start_line":-2}"#
        );
        assert_eq!(
            text(
                "read_window",
                json!({"window": "main", "output_rows": {"from": 1.0, "to": 1e30}})
            ),
            r#"ok {"window":"main","output_rows":{"from":1,"to":18446744073709551615}}"#
        );
        assert_eq!(
            text("wait_window", json!({"window": "main", "max_seconds": 0})),
            r#"ok {"window":"main","max_seconds":0}"#
        );
        assert_eq!(
            text(
                "send_text",
                json!({"window": "main", "text": "ls", "enter": true, "wait_seconds": null})
            ),
            r#"ok {"window":"main","text":"ls","enter":true}"#
        );
    }
}
