//! The body of a POST before rmcp reads it: read whole (4 MiB at most), a JSON-RPC batch served
//! message by message, and a body that is not one JSON-RPC message refused as a bad request
//! that says what is wrong.
//!
//! rmcp reads one message per POST and answers anything else with 415 and serde's words, as if
//! the media type were at fault. MCP's Streamable HTTP has a POST carry one message, or, up to
//! protocol 2025-03-26, a batch (a JSON array of them), answered with an array of the answers
//! (notifications unanswered). From 2025-06-18 on, a batch is refused with 400, in the words of
//! the official Go MCP SDK, which the Go build rat started from used.

use std::convert::Infallible;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Body as HttpBody;
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

/// The body of every response ratd sends.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// The first protocol version without batches.
const NO_BATCHES_FROM: &str = "2025-06-18";

/// The version a request without `MCP-Protocol-Version` is read as (MCP's rule, rmcp's too).
const VERSION_WITHOUT_HEADER: &str = "2025-03-26";

/// The most messages ratd serves in one batch (`docs/design/transport.md`, Batches).
pub(crate) const MAX_BATCH_MESSAGES: usize = 64;

/// The most the results of one batch may add up to, each message counted at the read budget
/// (the most one result holds): 16 MiB, the largest read budget, so that a batch of one
/// message is always served (`docs/design/transport.md`, Batches).
pub(crate) const MAX_BATCH_RESULT_BYTES: usize = 16 * 1024 * 1024;

/// How many messages of a batch are served at once; the others wait their turn.
pub(crate) const BATCH_CONCURRENCY: usize = 8;

/// How many batches a ratd serves at once, whatever their connections; the others wait their
/// turn (`docs/design/transport.md`, Batches).
pub(crate) const BATCHES_AT_ONCE: usize = 2;

/// The most messages of one batch with `read_budget`: [`MAX_BATCH_MESSAGES`], fewer when
/// their results, counted at the read budget each, would be over [`MAX_BATCH_RESULT_BYTES`].
pub(crate) fn batch_limit(read_budget: rat_core::result::ReadBudget) -> usize {
    (MAX_BATCH_RESULT_BYTES / read_budget.bytes().max(1)).clamp(1, MAX_BATCH_MESSAGES)
}

/// The answer to a batch of `count` messages over [`batch_limit`]: refused whole before any
/// message is served, with one JSON-RPC error without identifier naming both limits.
fn batch_too_large(count: usize, read_budget: rat_core::result::ReadBudget) -> Response<Body> {
    let limit = batch_limit(read_budget);
    json_error(
        StatusCode::BAD_REQUEST,
        -32600,
        &format!(
            "Invalid Request: a batch of {count} messages, over what ratd serves in one batch: \
             {MAX_BATCH_MESSAGES} messages, and 16 MiB of results counting each message at the \
             read budget ({read_budget}), so {limit} messages at most here; no message of it was \
             served: send fewer messages per batch, or one message per request"
        ),
    )
}

/// How many elements the JSON array `body` holds, counted without building them.
fn count_elements(body: &[u8]) -> serde_json::Result<usize> {
    struct Count;
    impl<'de> serde::de::Visitor<'de> for Count {
        type Value = usize;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
            let mut count = 0;
            while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                count += 1;
            }
            Ok(count)
        }
    }
    let mut reader = serde_json::Deserializer::from_slice(body);
    let count = serde::Deserializer::deserialize_seq(&mut reader, Count)?;
    reader.end()?;
    Ok(count)
}

/// What a body read whole is.
pub(crate) enum Read {
    /// The body, within the limit.
    Whole(Bytes),
    /// Over the limit: the answer is a 413, once the rest is drained.
    TooLarge,
    /// The client stopped sending (connection closed or broken).
    Broken,
}

/// Reads `body` whole, `limit` bytes at most.
pub(crate) async fn read_whole<B>(mut body: B, limit: usize) -> Read
where
    B: HttpBody<Data = Bytes> + Unpin,
{
    let mut collected = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            return Read::Broken;
        };
        if let Ok(data) = frame.into_data() {
            if data.len() > limit.saturating_sub(collected.len()) {
                return Read::TooLarge;
            }
            collected.extend_from_slice(&data);
        }
    }
    Read::Whole(collected.freeze())
}

/// Whether `body` is a batch: a JSON array (its first byte other than white space is `[`).
pub(crate) fn is_batch(body: &[u8]) -> bool {
    body.iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[')
}

/// The answer to a body rmcp could not read as one JSON-RPC message: 400, and a JSON-RPC error
/// without identifier (as MCP lets a server answer input it can not accept) telling what is
/// wrong and what to send: a parse error (-32700) for a body that is not JSON, an invalid
/// request (-32600) for JSON that is not a JSON-RPC message.
pub(crate) fn not_a_message(body: &[u8]) -> Response<Body> {
    let send =
        r#"POST one JSON-RPC message, such as {"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    let (code, message) = if body.iter().all(u8::is_ascii_whitespace) {
        (
            -32700,
            format!("Parse error: the request body is empty: {send}"),
        )
    } else {
        match serde_json::from_slice::<Value>(body) {
            Err(error) => (
                -32700,
                format!("Parse error: the request body is not JSON ({error}): {send}"),
            ),
            Ok(value) => (
                -32600,
                format!("Invalid Request: {}: {send}", not_json_rpc(&value)),
            ),
        }
    };
    json_error(StatusCode::BAD_REQUEST, code, &message)
}

/// What makes `value` (JSON) no JSON-RPC message, in the terms of JSON-RPC 2.0.
fn not_json_rpc(value: &Value) -> String {
    let Value::Object(object) = value else {
        return "the request body is JSON but not an object".to_owned();
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return r#"a JSON-RPC message has "jsonrpc":"2.0""#.to_owned();
    }
    match object.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return "the method of a JSON-RPC message is a string".to_owned(),
        None if object.contains_key("result") || object.contains_key("error") => {}
        None => return "a JSON-RPC request or notification names its method".to_owned(),
    }
    match object.get("id") {
        None | Some(Value::String(_) | Value::Number(_)) => {}
        Some(Value::Null) => return "a request's id is a string or a number, not null".to_owned(),
        Some(_) => return "the id of a JSON-RPC message is a string or a number".to_owned(),
    }
    if object
        .get("params")
        .is_some_and(|params| !params.is_object())
    {
        return "the params of an MCP message are an object".to_owned();
    }
    "the request body is not a JSON-RPC message MCP knows".to_owned()
}

/// A JSON-RPC error without identifier, with `status`.
fn json_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    json_response(status, body.to_string())
}

fn json_response(status: StatusCode, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a JSON response is valid")
}

/// The protocol version a request names in its `MCP-Protocol-Version` header, or the one a
/// request without it is read as.
fn version_of(headers: &HeaderMap) -> &str {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .unwrap_or(VERSION_WITHOUT_HEADER)
}

/// Serves a batch (`body`, a JSON array) of a POST whose head is `parts`: refused from protocol
/// 2025-06-18 on (HTTP 400, the Go SDK's words); over [`batch_limit`] for `read_budget`,
/// refused whole before any message is served (HTTP 400, one JSON-RPC error); else each
/// message is served as a POST of its own with the same headers by `serve`
/// ([`BATCH_CONCURRENCY`] at once, once one of the [`BATCHES_AT_ONCE`] places of `batches` is
/// free), and the answers are returned as one array, in the order of the batch;
/// only notifications (or answers) in it: 202 and no body. An element that is not a JSON-RPC
/// message gets its invalid request error in the array, as JSON-RPC 2.0 has it; an empty batch
/// is one invalid request. A message refused before it is read (406 for a missing Accept, an
/// unknown protocol version) is the answer of the whole batch, as all share the headers.
pub(crate) async fn serve_batch<F, Fut>(
    parts: &http::request::Parts,
    body: &[u8],
    read_budget: rat_core::result::ReadBudget,
    batches: &tokio::sync::Semaphore,
    serve: F,
) -> Response<Body>
where
    F: Fn(Request<Full<Bytes>>) -> Fut,
    Fut: Future<Output = Response<Body>>,
{
    let version = version_of(&parts.headers);
    // Versions are dates: their order is the order of their text (the Go SDK compares them so).
    if version >= NO_BATCHES_FROM {
        return Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .header(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(
                Full::new(Bytes::from(format!(
                    "JSON-RPC batching is not supported in {NO_BATCHES_FROM} and later (request version: {version})\n"
                )))
                .boxed(),
            )
            .expect("a text response is valid");
    }
    match count_elements(body) {
        Ok(count) if count > batch_limit(read_budget) => {
            return batch_too_large(count, read_budget);
        }
        Ok(_) => {}
        Err(_) => return not_a_message(body),
    }
    let items = match serde_json::from_slice::<Vec<Value>>(body) {
        Ok(items) => items,
        Err(_) => return not_a_message(body),
    };
    if items.is_empty() {
        return json_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Invalid Request: an empty batch: send at least one JSON-RPC message in it",
        );
    }
    let _place = batches
        .acquire()
        .await
        .expect("the batches' semaphore is never closed");
    let answers: Vec<Response<Body>> = futures::StreamExt::collect(futures::StreamExt::buffered(
        futures::stream::iter(items.into_iter().map(|item| {
            let request = item_request(parts, &item);
            let serve = &serve;
            async move {
                match request {
                    Ok(request) => serve(request).await,
                    Err(invalid) => json_error(StatusCode::OK, -32600, &invalid),
                }
            }
        })),
        BATCH_CONCURRENCY,
    ))
    .await;
    let mut array = Vec::new();
    for answer in answers {
        let (head, body) = answer.into_parts();
        let bytes = collect(body).await;
        if bytes.iter().all(u8::is_ascii_whitespace) && head.status.is_success() {
            continue; // a notification: 202, nothing to answer
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(value @ Value::Object(_)) => array.push(value),
            _ => return Response::from_parts(head, Full::new(bytes).boxed()),
        }
    }
    if array.is_empty() {
        return Response::builder()
            .status(StatusCode::ACCEPTED)
            .body(Full::new(Bytes::new()).boxed())
            .expect("an empty response is valid");
    }
    json_response(StatusCode::OK, Value::Array(array).to_string())
}

/// The POST of one message of a batch, or the invalid request answer of an element that is
/// not a JSON-RPC message.
fn item_request(
    parts: &http::request::Parts,
    item: &Value,
) -> Result<Request<Full<Bytes>>, String> {
    if serde_json::from_value::<ClientJsonRpcMessage>(item.clone()).is_err() {
        return Err(format!(
            "Invalid Request: an element of the batch: {}",
            not_json_rpc(item)
        ));
    }
    let mut request = Request::builder()
        .method(parts.method.clone())
        .uri(parts.uri.clone())
        .version(parts.version)
        .body(Full::new(Bytes::from(item.to_string())))
        .expect("a request from a valid head is valid");
    let mut headers = parts.headers.clone();
    headers.remove(http::header::CONTENT_LENGTH);
    *request.headers_mut() = headers;
    if let Some(peer) = parts.extensions.get::<crate::peer::Peer>() {
        request.extensions_mut().insert(peer.clone());
    }
    Ok(request)
}

async fn collect(body: Body) -> Bytes {
    match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    }
}
