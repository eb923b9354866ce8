//! The HTTP headers of a relayed message, computed from the message itself
//! (`docs/design/bridge.md`, Headers).
//!
//! - `Content-Type: application/json` and `Accept: application/json, text/event-stream`, fixed
//!   (Streamable HTTP requires a POST to accept both).
//! - `Mcp-Protocol-Version`: the version in the message's `_meta`
//!   (`io.modelcontextprotocol/protocolVersion`, protocol 2026-07-28 on), else the version the
//!   result of `initialize` negotiated (older protocols); none before that.
//! - From 2026-07-28 on, the standard headers of SEP-2243: `Mcp-Method`, `Mcp-Name` (`params.name`
//!   of `tools/call` and `prompts/get`, `params.uri` of `resources/read`, `resources/subscribe`
//!   and `resources/unsubscribe`, `params.taskId` of `tasks/get`, `tasks/update` and
//!   `tasks/cancel`, as rmcp validates them), and `Mcp-Param-{Header}` for each argument of a
//!   `tools/call` whose property in the tool's input schema carries `"x-mcp-header": "{Header}"`.
//!   The schemas are rat-wire's, built into rat: never learnt from ratd.
//!
//! Values follow SEP-2243's encoding: plain printable ASCII travels as is; a value with a leading
//! or trailing space or tab, a control or non-ASCII character, or one that already looks like
//! the sentinel travels as `=?base64?{Base64 of its UTF-8}?=`.

use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

/// The `_meta` key carrying a request's protocol version, from 2026-07-28 on.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The first protocol version with the standard headers of SEP-2243 and no `initialize`.
pub const STANDARD_HEADERS_VERSION: &str = "2026-07-28";

/// `Mcp-Protocol-Version`.
pub const MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`.
pub const MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
pub const MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");
/// The prefix of the headers carrying annotated arguments.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";

/// The `Accept` header of every POST: both media types, as Streamable HTTP requires.
pub const ACCEPT: &str = "application/json, text/event-stream";

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Whether a protocol version has the standard headers (versions are dates: they compare as
/// strings).
pub fn has_standard_headers(version: &str) -> bool {
    version >= STANDARD_HEADERS_VERSION
}

/// A header value in SEP-2243's encoding: as is when it is plain printable ASCII with no
/// leading or trailing space or tab and does not look like the sentinel, else
/// `=?base64?{Base64}?=`.
pub fn encode_value(value: &str) -> String {
    let bytes = value.as_bytes();
    let printable = bytes.iter().all(|&b| (0x20..=0x7e).contains(&b));
    let padded =
        matches!(bytes.first(), Some(b' ' | b'\t')) || matches!(bytes.last(), Some(b' ' | b'\t'));
    let sentinel = value.starts_with(SENTINEL_PREFIX) && value.ends_with(SENTINEL_SUFFIX);
    let plain = printable && !padded && !sentinel;
    if plain {
        value.to_owned()
    } else {
        format!("{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}", BASE64.encode(bytes))
    }
}

/// The `x-mcp-header` annotations of the tools rat knows: for each tool, the path of each
/// annotated property (from the root of the arguments, through `properties`) and its header name.
#[derive(Debug, Clone, Default)]
pub struct ToolHeaders {
    tools: HashMap<String, Vec<(Vec<String>, String)>>,
}

impl ToolHeaders {
    /// Collects the annotations of the given input schemas (`(tool name, input schema)`), as
    /// `rat_wire::tool::input_schemas()` gives them. Annotations that are not a non-empty
    /// string are ignored, as rmcp ignores them.
    pub fn from_schemas<'a>(
        schemas: impl IntoIterator<Item = (&'a str, &'a Map<String, Value>)>,
    ) -> Self {
        let mut tools = HashMap::new();
        for (name, schema) in schemas {
            let mut found = Vec::new();
            collect(schema.get("properties"), &mut Vec::new(), &mut found);
            if !found.is_empty() {
                tools.insert(name.to_owned(), found);
            }
        }
        Self { tools }
    }

    /// The annotated arguments of a tool: `(path, header name)` pairs, empty for a tool without
    /// any (or unknown to rat).
    pub fn of(&self, tool: &str) -> &[(Vec<String>, String)] {
        self.tools.get(tool).map(Vec::as_slice).unwrap_or(&[])
    }
}

fn collect(
    properties: Option<&Value>,
    path: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, String)>,
) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, schema) in properties {
        path.push(name.clone());
        if let Some(Value::String(header)) = schema.get("x-mcp-header")
            && !header.is_empty()
        {
            out.push((path.clone(), header.clone()));
        }
        collect(schema.get("properties"), path, out);
        path.pop();
    }
}

/// The protocol version a message states in `params._meta`, if any.
pub fn meta_version(message: &Value) -> Option<&str> {
    message
        .get("params")?
        .get("_meta")?
        .get(META_PROTOCOL_VERSION)?
        .as_str()
}

/// The `Mcp-Name` source of a request, if its method has one.
fn name_of<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        "tasks/get" | "tasks/update" | "tasks/cancel" => "taskId",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

/// A primitive argument as SEP-2243 writes it (a string as is, a number or a boolean as JSON
/// writes it); `None` for null, an object or an array.
fn primitive(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Adds the standard headers of SEP-2243 for a message (an object with a `method`) to `headers`.
/// Called only when the message's protocol version has them.
pub fn add_standard_headers(message: &Value, tools: &ToolHeaders, headers: &mut HeaderMap) {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return;
    };
    let params = message.get("params");
    if let Ok(value) = HeaderValue::from_str(&encode_value(method)) {
        headers.insert(MCP_METHOD, value);
    }
    if let Some(name) = name_of(method, params)
        && let Ok(value) = HeaderValue::from_str(&encode_value(name))
    {
        headers.insert(MCP_NAME, value);
    }
    if method != "tools/call" {
        return;
    }
    let (Some(tool), Some(arguments)) = (
        params.and_then(|p| p.get("name")).and_then(Value::as_str),
        params.and_then(|p| p.get("arguments")),
    ) else {
        return;
    };
    for (path, header) in tools.of(tool) {
        let Some(value) = path.iter().try_fold(arguments, |v, key| v.get(key)) else {
            continue;
        };
        let Some(text) = primitive(value) else {
            continue;
        };
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(format!("{MCP_PARAM_PREFIX}{header}").as_bytes()),
            HeaderValue::from_str(&encode_value(&text)),
        ) {
            headers.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_ascii_travels_as_is_and_the_rest_in_base64() {
        assert_eq!(encode_value("build-1"), "build-1");
        assert_eq!(encode_value("a b"), "a b");
        assert_eq!(encode_value(""), "");
        assert_eq!(encode_value(" lead"), "=?base64?IGxlYWQ=?=");
        assert_eq!(encode_value("trail\t"), "=?base64?dHJhaWwJ?=");
        assert_eq!(encode_value("é"), "=?base64?w6k=?=");
        assert_eq!(encode_value("a\nb"), "=?base64?YQpi?=");
        assert_eq!(encode_value("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
        assert_eq!(encode_value("=?base64?x"), "=?base64?x");
    }

    fn headers_of(message: Value, tools: &ToolHeaders) -> Vec<(String, String)> {
        let mut headers = HeaderMap::new();
        add_standard_headers(&message, tools, &mut headers);
        let mut out: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        out.sort();
        out
    }

    #[test]
    fn annotated_arguments_become_param_headers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "window": {"type": "string", "x-mcp-header": "Window"},
                "max_seconds": {"type": "integer"},
                "nested": {"type": "object", "properties": {"deep": {"type": "boolean", "x-mcp-header": "Deep"}}}
            }
        });
        let schema = schema.as_object().unwrap().clone();
        let tools = ToolHeaders::from_schemas([("wait_window", &schema)]);
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "wait_window", "arguments": {"window": "bûild", "max_seconds": 5, "nested": {"deep": true}}}});
        assert_eq!(
            headers_of(call, &tools),
            vec![
                ("mcp-method".into(), "tools/call".into()),
                ("mcp-name".into(), "wait_window".into()),
                ("mcp-param-deep".into(), "true".into()),
                ("mcp-param-window".into(), "=?base64?YsO7aWxk?=".into()),
            ]
        );
        let absent = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "wait_window", "arguments": {"window": null}}});
        assert_eq!(
            headers_of(absent, &tools),
            vec![
                ("mcp-method".into(), "tools/call".into()),
                ("mcp-name".into(), "wait_window".into()),
            ]
        );
    }

    #[test]
    fn names_come_from_name_uri_or_task_id() {
        let tools = ToolHeaders::default();
        assert_eq!(
            headers_of(
                json!({"method": "resources/read", "params": {"uri": "file:///a b"}}),
                &tools
            ),
            vec![
                ("mcp-method".into(), "resources/read".into()),
                ("mcp-name".into(), "file:///a b".into()),
            ]
        );
        assert_eq!(
            headers_of(
                json!({"method": "tools/list", "params": {"name": "x"}}),
                &tools
            ),
            vec![("mcp-method".into(), "tools/list".into())]
        );
    }
}
