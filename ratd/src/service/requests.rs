//! One line per MCP request at debug level (`docs/design/status-and-logs.md`): the session, the
//! address, the method and the duration, whatever the protocol version (clients initialize, or
//! discover the server from 2026-07-28 on). Never the parameters: a tools/call carries texts, keys
//! and file contents.
//!
//! The method is read from the request body as it streams to rmcp ([`Tap`]): a small scanner
//! ([`MethodScanner`]) follows the JSON's nesting and keeps the string value of the top-level
//! `method` key only, whatever the order of the keys; nothing else of the body is kept, and a
//! `"method"` inside the parameters is never taken for it. rmcp builds its handler through a
//! `ServerHandler` factory, which leaves no place to see the parsed request for every method.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

/// The longest method name kept; longer is cut (no MCP method comes near).
const MAX_METHOD: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Role {
    #[default]
    Other,
    Key,
    MethodValue,
}

/// Finds the top-level `"method"` string of a JSON object fed in pieces, keeping nothing else.
#[derive(Debug, Default)]
pub struct MethodScanner {
    depth: u32,
    in_string: bool,
    escape: bool,
    expect_key: bool,
    role: Role,
    key: Vec<u8>,
    key_is_method: bool,
    want_value: bool,
    value: Vec<u8>,
    method: Option<String>,
}

impl MethodScanner {
    /// A scanner at the start of a body.
    pub fn new() -> Self {
        Self::default()
    }

    /// The method, once its value was read whole.
    pub fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// Feeds the next bytes of the body.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.method.is_some() {
                return;
            }
            if self.in_string {
                if self.escape {
                    self.escape = false;
                    self.push(b);
                } else if b == b'\\' {
                    self.escape = true;
                    self.push(b);
                } else if b == b'"' {
                    self.in_string = false;
                    match self.role {
                        Role::Key => self.key_is_method = self.key == b"method",
                        Role::MethodValue => {
                            self.method = Some(String::from_utf8_lossy(&self.value).into_owned());
                        }
                        Role::Other => {}
                    }
                } else {
                    self.push(b);
                }
                continue;
            }
            match b {
                b'{' | b'[' => {
                    self.depth += 1;
                    self.expect_key = self.depth == 1 && b == b'{';
                    self.want_value = false;
                }
                b'}' | b']' => self.depth = self.depth.saturating_sub(1),
                b'"' => {
                    self.in_string = true;
                    self.role = if self.depth == 1 && self.expect_key {
                        self.key.clear();
                        Role::Key
                    } else if self.depth == 1 && self.want_value {
                        self.value.clear();
                        Role::MethodValue
                    } else {
                        Role::Other
                    };
                    self.expect_key = false;
                    self.want_value = false;
                }
                b':' if self.depth == 1 => {
                    self.want_value = std::mem::take(&mut self.key_is_method);
                }
                b',' if self.depth == 1 => {
                    self.expect_key = true;
                    self.want_value = false;
                    self.key_is_method = false;
                }
                b' ' | b'\t' | b'\n' | b'\r' => {}
                _ if self.depth == 1 => self.want_value = false,
                _ => {}
            }
        }
    }

    fn push(&mut self, b: u8) {
        match self.role {
            Role::Key if self.key.len() < 16 => self.key.push(b),
            Role::MethodValue if self.value.len() < MAX_METHOD => self.value.push(b),
            _ => {}
        }
    }
}

/// A request body passing through unchanged, its bytes fed to a [`MethodScanner`].
///
/// The body itself is shared with the [`MethodSeen`] handle, so that what rmcp left unread
/// can still be read to its end ([`MethodSeen::drain`]) after rmcp refused it as too large.
pub struct Tap<B> {
    shared: Arc<Mutex<Tapped<B>>>,
}

struct Tapped<B> {
    body: B,
    scanner: MethodScanner,
    /// Bytes of the body read so far, by rmcp then by a drain.
    read: u64,
}

/// The tapped body, for the [`Tap`] rmcp reads or the [`MethodSeen`] kept by ratd: a panic
/// while it was held leaves nothing half-updated worth refusing.
fn lock<B>(shared: &Mutex<Tapped<B>>) -> std::sync::MutexGuard<'_, Tapped<B>> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

impl<B> Tap<B> {
    /// `inner`, and the handle to read its method from once rmcp read it.
    pub fn new(inner: B) -> (Self, MethodSeen<B>) {
        let shared = Arc::new(Mutex::new(Tapped {
            body: inner,
            scanner: MethodScanner::new(),
            read: 0,
        }));
        (
            Self {
                shared: shared.clone(),
            },
            MethodSeen(shared),
        )
    }
}

/// The method of a tapped body, readable once the body was read; and the rest of the body.
pub struct MethodSeen<B>(Arc<Mutex<Tapped<B>>>);

impl<B> MethodSeen<B> {
    /// The method, or `-` when the body held none (a GET, a body rmcp refused unread, not
    /// JSON-RPC).
    pub fn method(&self) -> String {
        lock(&self.0).scanner.method().unwrap_or("-").to_owned()
    }
}

impl<B: Body<Data = Bytes> + Unpin> MethodSeen<B> {
    /// Reads what is left of the body and throws it away, up to `most` bytes in all (counting
    /// what rmcp read), each piece waited for at most `idle`. True when the body was read to
    /// its end.
    ///
    /// Why: after a 413, a client is still sending the body it could not know was too large.
    /// A server closing the connection on unread bytes makes the kernel reset it, and the
    /// client, still writing, sees a broken pipe instead of the answer (rat would then tell
    /// the agent "sent an invalid response: broken pipe" instead of what to do). Read to the
    /// end, the client finishes its request and reads the 413.
    pub async fn drain(&self, most: u64, idle: std::time::Duration) -> bool {
        loop {
            // Some(true): the end; Some(false): too much or a failure; None: a piece read.
            let piece = std::future::poll_fn(|cx| {
                let mut tapped = lock(&self.0);
                if tapped.read > most {
                    return Poll::Ready(Some(false));
                }
                match Pin::new(&mut tapped.body).poll_frame(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(None) => Poll::Ready(Some(true)),
                    Poll::Ready(Some(Err(_))) => Poll::Ready(Some(false)),
                    Poll::Ready(Some(Ok(frame))) => {
                        tapped.read += frame.data_ref().map_or(0, |d| d.len() as u64);
                        Poll::Ready(None)
                    }
                }
            });
            match tokio::time::timeout(idle, piece).await {
                Ok(None) => {}
                Ok(Some(end)) => return end,
                Err(_) => return false,
            }
        }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Tap<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let mut tapped = lock(&self.shared);
        let tapped = &mut *tapped;
        let poll = Pin::new(&mut tapped.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &poll
            && let Some(data) = frame.data_ref()
        {
            tapped.read += data.len() as u64;
            tapped.scanner.feed(data);
        }
        poll
    }

    fn is_end_stream(&self) -> bool {
        lock(&self.shared).body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        lock(&self.shared).body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(body: &str) -> Option<String> {
        // Fed one byte at a time, as the worst split of a body in frames.
        let mut scanner = MethodScanner::new();
        for b in body.as_bytes() {
            scanner.feed(std::slice::from_ref(b));
        }
        let whole = {
            let mut s = MethodScanner::new();
            s.feed(body.as_bytes());
            s.method().map(str::to_owned)
        };
        assert_eq!(scanner.method().map(str::to_owned), whole, "{body}");
        whole
    }

    #[test]
    fn the_top_level_method_whatever_the_order() {
        assert_eq!(
            method(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#).as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            method(r#"{ "params" : {"name":"send_text","arguments":{"method":"secret","text":"a\"method\":\"x"}}, "id": 3, "method" : "tools/call" }"#).as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            method(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).as_deref(),
            Some("notifications/initialized")
        );
        assert_eq!(
            method(r#"{"id":[1,{"method":"no"}],"result":{"method":"no"},"x":"method","method":"ping"}"#).as_deref(),
            Some("ping")
        );
    }

    #[test]
    fn no_method_is_none() {
        assert_eq!(method(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(method(r#"["method","tools/call"]"#), None);
        assert_eq!(method(r#"{"method":1}"#), None);
        assert_eq!(method("not json"), None);
        assert_eq!(method(""), None);
    }

    #[test]
    fn a_long_method_is_cut() {
        let long = "m".repeat(1000);
        assert_eq!(
            method(&format!(r#"{{"method":"{long}"}}"#)).map(|m| m.len()),
            Some(MAX_METHOD)
        );
    }
}
