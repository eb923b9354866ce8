//! What ratd answered an HTTP exchange: a JSON-RPC body to write on one line, nothing (202), or
//! a failure naming what came instead.

use bytes::Bytes;
use http::StatusCode;
use serde_json::Value;

use crate::failure::Failure;

/// What an HTTP exchange gave: a body to write, nothing (202), or a failure.
pub(super) enum Answer {
    Body(Bytes),
    Nothing,
}

/// Reads what ratd answered: a JSON body is ratd's answer, written whatever the status (for an
/// error status, when it is a JSON-RPC message); an empty 2xx body is the answer to a
/// notification; anything else is a failure.
pub(super) fn interpret(
    server: &str,
    status: StatusCode,
    event_stream: bool,
    bytes: Bytes,
    expects_answer: bool,
) -> Result<Answer, Failure> {
    let trimmed = trim(&bytes);
    if trimmed.is_empty() {
        if !status.is_success() {
            return Err(Failure::Status {
                server: server.to_owned(),
                status: status.as_u16(),
                first_line: status.canonical_reason().unwrap_or("no body").to_owned(),
            });
        }
        if expects_answer {
            return Err(Failure::Invalid {
                server: server.to_owned(),
                reason: format!(
                    "HTTP {} with no body, where a JSON-RPC response was expected",
                    status.as_u16()
                ),
            });
        }
        return Ok(Answer::Nothing);
    }
    let parsed = serde_json::from_slice::<serde::de::IgnoredAny>(trimmed);
    let structured = matches!(trimmed.first(), Some(b'{' | b'['));
    if parsed.is_ok() && structured && (status.is_success() || is_json_rpc(trimmed)) {
        return Ok(Answer::Body(frame(&bytes)));
    }
    if !status.is_success() {
        return Err(Failure::Status {
            server: server.to_owned(),
            status: status.as_u16(),
            first_line: first_line(&bytes, status),
        });
    }
    let reason = if event_stream {
        "an event stream (text/event-stream), where rat expects a JSON body".to_owned()
    } else {
        match parsed {
            Err(e) => format!("the body is not JSON: {e}"),
            Ok(_) => "the body is not a JSON-RPC message".to_owned(),
        }
    };
    Err(Failure::Invalid {
        server: server.to_owned(),
        reason,
    })
}

/// Whether a JSON body is a JSON-RPC message (an object naming `jsonrpc`, or a batch).
fn is_json_rpc(body: &[u8]) -> bool {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(object)) => object.contains_key("jsonrpc"),
        Ok(Value::Array(_)) => true,
        _ => false,
    }
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &bytes[start..end]
}

/// The body as one line: trailing line endings removed; a `\r` or `\n` inside (JSON whitespace,
/// the only place a valid JSON text can hold one) becomes a space, as the stdio transport
/// forbids new lines inside a message. ratd never sends either: its bodies go out untouched.
fn frame(bytes: &Bytes) -> Bytes {
    let mut end = bytes.len();
    while end > 0 && matches!(bytes[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    let body = bytes.slice(..end);
    if memchr::memchr2(b'\n', b'\r', &body).is_none() {
        return body;
    }
    Bytes::from(
        body.iter()
            .map(|&b| if b == b'\n' || b == b'\r' { b' ' } else { b })
            .collect::<Vec<u8>>(),
    )
}

/// The first line of a body, at most 200 characters (the reason phrase when it is empty).
pub(super) fn first_line(bytes: &[u8], status: StatusCode) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text.trim().lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return status.canonical_reason().unwrap_or("no body").to_owned();
    }
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_framed_on_one_line() {
        assert_eq!(
            frame(&Bytes::from_static(b"{ \"a\" :1 }\r\n")),
            Bytes::from_static(b"{ \"a\" :1 }")
        );
        assert_eq!(
            frame(&Bytes::from_static(b"{\n\"a\":1}\n")),
            Bytes::from_static(b"{ \"a\":1}")
        );
    }

    #[test]
    fn answers_and_failures() {
        let ok = |status: u16, body: &'static [u8]| {
            interpret(
                "h:1",
                StatusCode::from_u16(status).unwrap(),
                false,
                Bytes::from_static(body),
                true,
            )
        };
        assert!(matches!(
            ok(200, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"),
            Ok(Answer::Body(_))
        ));
        assert!(matches!(
            ok(400, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{}}"),
            Ok(Answer::Body(_))
        ));
        assert_eq!(
            ok(502, b"<html>bad gateway</html>\nmore")
                .err()
                .unwrap()
                .to_string(),
            "ratd at h:1 answered HTTP 502: <html>bad gateway</html>"
        );
        assert_eq!(
            ok(502, b"").err().unwrap().to_string(),
            "ratd at h:1 answered HTTP 502: Bad Gateway"
        );
        assert_eq!(
            ok(200, b"hello").err().unwrap().to_string(),
            "ratd at h:1 sent an invalid response: the body is not JSON: expected value at line 1 column 1"
        );
        assert_eq!(
            ok(202, b"").err().unwrap().to_string(),
            "ratd at h:1 sent an invalid response: HTTP 202 with no body, where a JSON-RPC response was expected"
        );
    }
}
