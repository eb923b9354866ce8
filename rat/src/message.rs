//! What rat reads inside a line, only to prepare its request, never to rewrite it
//! (`docs/design/bridge.md`, Relay): whether it is a request (answered), a notification (not
//! answered), or a batch, and its identifier.

use serde_json::Value;

/// Why a line is answered by rat itself rather than relayed; the answer has a null identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unrelayable {
    /// A line over 16 MiB (code -32050).
    #[error("message over 16 MiB, not relayed")]
    TooLong,
    /// A line that is not JSON, or JSON that is not a JSON-RPC message: neither an object nor an
    /// array, or a `method` that is not a string (code -32700).
    #[error("invalid JSON-RPC message: {0}")]
    Invalid(String),
}

/// The kind of a message, as far as relaying it needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A request (a `method` and an `id`): answered by a response, cancellable.
    Request {
        /// Its identifier, as JSON-RPC compares them (`1` and `"1"` differ).
        id: Value,
        /// Its method.
        method: String,
    },
    /// A notification (a `method`, no `id`): ratd answers 202, nothing is written.
    Notification {
        /// Its method.
        method: String,
    },
    /// A batch (protocol 2025-03-26): relayed as it is; answered when it holds requests.
    Batch {
        /// The identifiers of its requests, with whether each is an `initialize`.
        requests: Vec<(Value, bool)>,
    },
    /// Any other object (a response of the client to the server, say): relayed, not answered.
    Other,
}

/// A line read as a message: its JSON value (only read, never written back) and its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The message as JSON, to compute headers from.
    pub value: Value,
    /// What it is.
    pub kind: Kind,
}

impl Message {
    /// Reads a line as a JSON-RPC message.
    ///
    /// # Errors
    /// [`Unrelayable::Invalid`] when the line is not JSON (with serde_json's reason, e.g.
    /// `expected value at line 1 column 1`), or is JSON but not an object or an array of
    /// messages, or holds a `method` that is not a string.
    pub fn parse(line: &[u8]) -> Result<Self, Unrelayable> {
        let value: Value =
            serde_json::from_slice(line).map_err(|e| Unrelayable::Invalid(e.to_string()))?;
        let kind = match &value {
            Value::Object(_) => kind_of(&value)?,
            Value::Array(items) => {
                let mut requests = Vec::new();
                for item in items {
                    if let Kind::Request { id, method } = kind_of(item)? {
                        requests.push((id, method == "initialize"));
                    }
                }
                Kind::Batch { requests }
            }
            other => {
                return Err(Unrelayable::Invalid(format!(
                    "expected an object or an array, found {}",
                    type_name(other)
                )));
            }
        };
        Ok(Self { value, kind })
    }
}

fn kind_of(value: &Value) -> Result<Kind, Unrelayable> {
    let Value::Object(object) = value else {
        return Err(Unrelayable::Invalid(format!(
            "a batch holds {}, where messages are objects",
            type_name(value)
        )));
    };
    let method = match object.get("method") {
        None => return Ok(Kind::Other),
        Some(Value::String(method)) => method.clone(),
        Some(other) => {
            return Err(Unrelayable::Invalid(format!(
                "method is {}, where a string is expected",
                type_name(other)
            )));
        }
    };
    Ok(match object.get("id") {
        Some(id) => Kind::Request {
            id: id.clone(),
            method,
        },
        None => Kind::Notification { method },
    })
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The key of an identifier in the table of calls in flight: its JSON text, so that `1` and
/// `"1"` differ, as JSON-RPC compares identifiers.
pub fn id_key(id: &Value) -> String {
    serde_json::to_string(id).expect("a JSON value serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds() {
        let kind = |line: &str| Message::parse(line.as_bytes()).map(|m| m.kind);
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","id":"1","method":"tools/list"}"#),
            Ok(Kind::Request {
                id: json!("1"),
                method: "tools/list".into()
            })
        );
        assert_eq!(
            kind(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(Kind::Notification {
                method: "notifications/initialized".into()
            })
        );
        assert_eq!(
            kind(r#"[{"id":1,"method":"initialize"},{"method":"n"},{"id":2,"method":"x"}]"#),
            Ok(Kind::Batch {
                requests: vec![(json!(1), true), (json!(2), false)]
            })
        );
        assert_eq!(kind(r#"{"id":1,"result":{}}"#), Ok(Kind::Other));
        assert_eq!(
            kind("hello"),
            Err(Unrelayable::Invalid(
                "expected value at line 1 column 1".into()
            ))
        );
        assert_eq!(
            kind("42"),
            Err(Unrelayable::Invalid(
                "expected an object or an array, found a number".into()
            ))
        );
        assert_eq!(
            kind(r#"{"id":1,"method":7}"#),
            Err(Unrelayable::Invalid(
                "method is a number, where a string is expected".into()
            ))
        );
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
    }
}
