//! The relay's side towards ratd: the headers of each message, the HTTP exchange of a request,
//! a batch or a notification, the calls in flight and the version `initialize` negotiated.

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, StatusCode};
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::{debug, warn};

use super::RelayState;
use super::answers::{Answer, first_line, interpret};
use crate::failure::Failure;
use crate::headers;
use crate::message::{Kind, Message};

impl RelayState {
    /// The headers of a message: the fixed ones, the protocol version, and from 2026-07-28 on the
    /// standard headers of SEP-2243.
    pub(super) fn headers_for(&self, message: &Message) -> HeaderMap {
        let mut map = HeaderMap::new();
        map.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        map.insert(ACCEPT, HeaderValue::from_static(headers::ACCEPT));
        let negotiated = || {
            self.negotiated
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clone()
        };
        let version = match &message.kind {
            Kind::Batch { .. } => negotiated(),
            Kind::Request { method, .. } if method == "initialize" => {
                headers::meta_version(&message.value).map(str::to_owned)
            }
            _ => headers::meta_version(&message.value)
                .map(str::to_owned)
                .or_else(negotiated),
        };
        if let Some(version) = version
            && let Ok(value) = HeaderValue::from_str(&version)
        {
            map.insert(headers::MCP_PROTOCOL_VERSION, value);
            if headers::has_standard_headers(&version)
                && !matches!(message.kind, Kind::Batch { .. })
            {
                headers::add_standard_headers(&message.value, &self.tools, &mut map);
            }
        }
        map
    }

    pub(super) fn unregister(&self, key: &str, registration: u64) {
        let mut in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if in_flight.get(key).is_some_and(|(r, _)| *r == registration) {
            in_flight.remove(key);
        }
    }

    pub(super) fn cancel(&self, key: &str) {
        let in_flight = self
            .in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, token)) = in_flight.get(key) {
            token.cancel();
        }
    }

    pub(super) fn learn_version(&self, result: &Value) {
        if let Some(version) = result
            .get("result")
            .and_then(|r| r.get("protocolVersion"))
            .and_then(Value::as_str)
        {
            *self
                .negotiated
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(version.to_owned());
        }
    }

    /// One POST, read whole, within `timeout`.
    pub(super) async fn exchange(
        &self,
        body: Bytes,
        headers: HeaderMap,
        timeout: Duration,
        expects_answer: bool,
    ) -> Result<(StatusCode, Answer), Failure> {
        let exchange = async {
            let response = self
                .client
                .post(&self.url)
                .headers(headers)
                .body(body)
                .send()
                .await?;
            let status = response.status();
            let event_stream = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
            let bytes = response.bytes().await?;
            Ok::<_, reqwest::Error>((status, event_stream, bytes))
        };
        let (status, event_stream, bytes) = match tokio::time::timeout(timeout, exchange).await {
            Err(_) => {
                return Err(Failure::Timeout {
                    server: self.server.clone(),
                    after: timeout,
                });
            }
            Ok(Err(e)) => return Err(Failure::from_reqwest(&self.server, &e, timeout)),
            Ok(Ok(answer)) => answer,
        };
        interpret(&self.server, status, event_stream, bytes, expects_answer).map(|a| (status, a))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn request(
        &self,
        id: &Value,
        key: &str,
        method: &str,
        body: Bytes,
        headers: HeaderMap,
        timeout: Duration,
        tx: &mpsc::UnboundedSender<Bytes>,
    ) {
        let started = Instant::now();
        match self.exchange(body, headers, timeout, true).await {
            Ok((status, Answer::Body(bytes))) => {
                debug!(method, id = %key, status = status.as_u16(), duration = ?started.elapsed(), "relayed");
                if method == "initialize"
                    && let Ok(value) = serde_json::from_slice::<Value>(&bytes)
                {
                    self.learn_version(&value);
                }
                let _ = tx.send(bytes);
            }
            Ok((status, Answer::Nothing)) => {
                // interpret() never gives Nothing when an answer is expected.
                debug!(method, id = %key, status = status.as_u16(), "no answer");
            }
            Err(failure) => {
                warn!(method, id = %key, error = %failure, "relay failed");
                let _ = tx.send(Bytes::from(failure.to_response(id)));
            }
        }
    }

    pub(super) async fn batch(
        &self,
        requests: Vec<(Value, bool)>,
        body: Bytes,
        headers: HeaderMap,
        timeout: Duration,
        tx: &mpsc::UnboundedSender<Bytes>,
    ) {
        let started = Instant::now();
        let expects_answer = !requests.is_empty();
        match self.exchange(body, headers, timeout, expects_answer).await {
            Ok((status, Answer::Body(bytes))) => {
                debug!(method = "(batch)", requests = requests.len(), status = status.as_u16(), duration = ?started.elapsed(), "relayed");
                let initializes: Vec<&Value> = requests
                    .iter()
                    .filter(|(_, i)| *i)
                    .map(|(id, _)| id)
                    .collect();
                if !initializes.is_empty()
                    && let Ok(Value::Array(responses)) = serde_json::from_slice::<Value>(&bytes)
                {
                    for response in &responses {
                        if response
                            .get("id")
                            .is_some_and(|id| initializes.contains(&id))
                        {
                            self.learn_version(response);
                        }
                    }
                }
                let _ = tx.send(bytes);
            }
            Ok((status, Answer::Nothing)) => {
                debug!(method = "(batch)", status = status.as_u16(), duration = ?started.elapsed(), "relayed");
            }
            Err(failure) => {
                warn!(method = "(batch)", error = %failure, "relay failed");
                if expects_answer {
                    let errors: Vec<Value> = requests
                        .iter()
                        .map(|(id, _)| {
                            serde_json::from_slice(&failure.to_response(id)).expect("valid JSON")
                        })
                        .collect();
                    let _ = tx.send(Bytes::from(
                        serde_json::to_vec(&errors).expect("a JSON value serializes"),
                    ));
                }
            }
        }
    }

    /// A notification (or a client's response): nothing is written; a failure is only logged.
    pub(super) async fn notification(
        &self,
        method: &str,
        body: Bytes,
        headers: HeaderMap,
        timeout: Duration,
    ) {
        let started = Instant::now();
        match self.exchange(body, headers, timeout, false).await {
            Ok((status, _)) if status.is_success() => {
                debug!(method, status = status.as_u16(), duration = ?started.elapsed(), "relayed");
            }
            Ok((status, Answer::Body(bytes))) => {
                let failure = Failure::Status {
                    server: self.server.clone(),
                    status: status.as_u16(),
                    first_line: first_line(&bytes, status),
                };
                warn!(method, error = %failure, "relay failed");
            }
            Ok((status, Answer::Nothing)) => {
                debug!(method, status = status.as_u16(), duration = ?started.elapsed(), "relayed");
            }
            Err(failure) => warn!(method, error = %failure, "relay failed"),
        }
    }
}
