//! ratd's logs (`docs/design/status-and-logs.md`): text lines on stderr through `tracing`, in one
//! of two forms.
//!
//! - [`Form::Text`], a terminal or a file: `2026-11-30T12:00:00.123456Z  INFO message key=value`
//!   (tracing-subscriber's full format, without targets).
//! - [`Form::Journal`], when stderr is the journal stream systemd names in `JOURNAL_STREAM`
//!   (`DEVICE:INODE`, matched against the `fstat(2)` of stderr): `<6>message key=value`, no time
//!   (the journal records its own) and a `<N>` syslog priority instead of the level, which
//!   journald turns into the priority of the entry (`SyslogLevelPrefix=`, on by default):
//!   error 3, warning 4, info 6, debug and trace 7. Detected by the device and inode rather than
//!   `INVOCATION_ID`, which every service gets whether it logs to the journal or not, and which a
//!   command started from a service inherits.
//!
//! The error ratd exits with is printed outside the logs ([`Form::error_line`]), an error in the
//! journal too.

use std::ffi::OsStr;
use std::fmt;
use std::io::IsTerminal;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

use crate::cli::{LogLevel, filter_directives};

/// The environment variable systemd names the journal stream of stdout and stderr in:
/// `DEVICE:INODE`, both decimal (`systemd.exec(5)`).
pub const JOURNAL_STREAM: &str = "JOURNAL_STREAM";

/// The form of ratd's log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Lines with their time and level, for a terminal or a file.
    Text,
    /// Lines for the journal: a `<N>` priority prefix, no time.
    Journal,
}

impl Form {
    /// The form for this process: [`Form::Journal`] when `JOURNAL_STREAM` names stderr (its
    /// device and inode), else [`Form::Text`].
    pub fn detect() -> Form {
        let stat = nix::sys::stat::fstat(std::io::stderr()).ok();
        let stream = std::env::var_os(JOURNAL_STREAM);
        match (stat, stream) {
            (Some(stat), Some(stream)) if names_stream(&stream, stat.st_dev, stat.st_ino) => {
                Form::Journal
            }
            _ => Form::Text,
        }
    }

    /// The line ratd prints when it exits with `error`, outside the logs: `ratd: ERROR` on a
    /// terminal, `<3>ratd: ERROR` in the journal, where it is an error entry too.
    pub fn error_line(self, error: &dyn fmt::Display) -> String {
        match self {
            Form::Text => format!("ratd: {error}"),
            Form::Journal => format!("<3>ratd: {error}"),
        }
    }
}

/// Whether `JOURNAL_STREAM`'s value `stream` (`DEVICE:INODE`) names the file of device `dev`
/// and inode `ino`.
pub fn names_stream(stream: &OsStr, dev: u64, ino: u64) -> bool {
    let Some((d, i)) = stream.to_str().and_then(|s| s.split_once(':')) else {
        return false;
    };
    d.parse::<u64>() == Ok(dev) && i.parse::<u64>() == Ok(ino)
}

/// The syslog priority of a level, as the journal reads a `<N>` prefix (`sd-daemon(3)`):
/// error 3 (`SD_ERR`), warning 4, info 6, debug and trace 7.
pub fn priority(level: &Level) -> u8 {
    match *level {
        Level::ERROR => 3,
        Level::WARN => 4,
        Level::INFO => 6,
        Level::DEBUG | Level::TRACE => 7,
    }
}

/// The filter of `--log-level` ([`filter_directives`]): the level for ratd, and for
/// the libraries whose own info lines are chatter (rmcp logs every stateless request at info;
/// hyper and rustls their connections) nothing under warning unless `--log-level debug` asks.
pub fn filter(level: LogLevel) -> EnvFilter {
    EnvFilter::new(filter_directives(level))
}

/// The journal's line format: `<N>` then the message and its fields, no time, no level.
#[derive(Debug, Clone, Copy, Default)]
pub struct JournalFormat;

impl<S, N> FormatEvent<S, N> for JournalFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write!(writer, "<{}>", priority(event.metadata().level()))?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// Installs ratd's log subscriber for the process: lines on stderr in `form`, filtered by
/// `level` ([`filter`]). Colours only on a terminal. For ratd's `main`: libraries never
/// install a subscriber.
///
/// A line stderr does not take (a pipe whose reader exited: `EPIPE`; a full disk) is dropped
/// without a word: tracing-subscriber's report of such a failure, on by default, goes through
/// `eprintln!`, which panics when stderr fails too, and so killed whichever task logged, the
/// one that handles SIGTERM among them (a dead log reader must never disable the kill switch:
/// stopping ratd stops everything, `docs/design/terminals.md`, Shutdown).
pub fn init(level: LogLevel, form: Form) {
    use tracing_subscriber::filter::FilterExt;
    use tracing_subscriber::layer::{Layer, SubscriberExt};
    use tracing_subscriber::util::SubscriberInitExt;
    let colors = form == Form::Text && std::io::stderr().is_terminal();
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(move || OneLine {
            inner: std::io::stderr(),
            colors,
        })
        .log_internal_errors(false)
        .with_target(false)
        .with_ansi(colors);
    let filter = filter(level).and(ClientGone);
    match form {
        Form::Text => tracing_subscriber::registry()
            .with(layer.with_filter(filter))
            .init(),
        Form::Journal => tracing_subscriber::registry()
            .with(layer.event_format(JournalFormat).with_filter(filter))
            .init(),
    }
}

/// The longest log line written, in bytes: a longer one is cut, its size told. A request can
/// carry 4 MiB, and rmcp logs some of it (an id, an error naming a tool).
pub const MAX_LINE: usize = 16 * 1024;

/// A writer that keeps each event on one line of its own, whatever the event holds: control
/// characters but tab (a new line, a carriage return, a NUL, an escape sequence) are written
/// escaped as Rust writes them (`\n`, `\0`, `\u{1b}`), and a line over [`MAX_LINE`] is cut.
/// ratd's own values are quoted already (`call_line`); this covers what libraries log
/// (rmcp writes a JSON-RPC id as the client sent it), the message, and the journal's `<N>`
/// priority prefix, which a forged line could otherwise carry.
///
/// tracing-subscriber formats an event into one buffer and writes it whole: each call to
/// `write` here is one line, ending with its new line.
///
/// On a terminal (`colors`), the escape character passes, for tracing's own colours: a forged
/// sequence can then colour a line, never make another.
pub struct OneLine<W> {
    /// Where lines go.
    pub inner: W,
    /// Whether the escape character passes (colours on a terminal).
    pub colors: bool,
}

impl<W: std::io::Write> std::io::Write for OneLine<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let mut line = String::with_capacity(body.len() + 1);
        for c in body.chars() {
            if c.is_control() && c != '\t' && !(self.colors && c == '\u{1b}') {
                line.extend(c.escape_debug());
            } else {
                line.push(c);
            }
        }
        if line.len() > MAX_LINE {
            let total = line.len();
            line.truncate(head(&line, MAX_LINE).len());
            line.push_str(&format!("... (line cut: {total} bytes)"));
        }
        line.push('\n');
        self.inner.write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The longest start of `text` of at most `max` bytes that ends on a character boundary.
pub(crate) fn head(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// rmcp's errors that only say a client went away before its answer: an agent cancelling a
/// call (rat ends its request), a harness stopping. Logged at error level by rmcp, they would
/// read as a fault of ratd at each cancellation; the call's own line tells what happened.
const CLIENT_GONE: &[&str] = &[
    "failed to send pending response during drain",
    // An error answered to a request (an unknown tool or method, invalid params): an agent's
    // own mistake, which ratd logs itself with the session and the address (a call line, or
    // "MCP request refused"), where rmcp writes it as a warning in Rust's debug form.
    "response error",
];

/// Leaves out rmcp's `CLIENT_GONE` errors, by their message (rmcp gives them no target or
/// field of their own); everything else passes.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientGone;

impl<S> tracing_subscriber::layer::Filter<S> for ClientGone {
    /// Events only: rmcp's spans (`serve_inner`), enabled at debug, would prefix ratd's own
    /// lines (`INFO serve_inner: call ...`), and ratd's lines carry their context as fields.
    fn enabled(
        &self,
        metadata: &tracing::Metadata<'_>,
        _: &tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        !metadata.is_span()
    }

    fn event_enabled(
        &self,
        event: &Event<'_>,
        _: &tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        if !event.metadata().target().starts_with("rmcp::") {
            return true;
        }
        let mut message = Message(None);
        event.record(&mut message);
        !message
            .0
            .is_some_and(|text| CLIENT_GONE.contains(&text.as_str()))
    }
}

/// The `message` of an event, as written.
struct Message(Option<String>);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

/// The most bytes of one value `call_line` writes; longer ones are cut, their size told.
const MAX_LOGGED: usize = 256;

/// `call TOOL key=value ...`: a value holding a space, a quote, an `=`, a backslash or a
/// character that is not printable is quoted and escaped, as Go's slog text handler does, so
/// that a path or a window name given by an agent can never end the line or forge another
/// (a newline, a NUL, an escape sequence).
pub(crate) fn call_line(tool: &str, log: &[(&'static str, String)]) -> String {
    let mut line = format!("call {tool}");
    for (key, value) in log {
        // A value refused for its size (a window name of 100 KB) is not kept whole.
        let cut;
        let value = if value.len() > MAX_LOGGED {
            cut = format!("{}... ({} bytes)", head(value, MAX_LOGGED), value.len());
            &cut
        } else {
            value
        };
        line.push(' ');
        line.push_str(key);
        line.push('=');
        // escape_debug leaves a printable character alone, and escapes quotes and backslashes.
        let plain = !value.is_empty()
            && value
                .chars()
                .all(|c| c != '=' && !c.is_whitespace() && c.escape_debug().count() == 1);
        if plain {
            line.push_str(value);
        } else {
            line.push_str(&format!("{value:?}"));
        }
    }
    line
}

/// `text` with each of its double-quoted strings (escapes followed) cut after `keep`
/// characters, `...` marking a cut: `"hunter2"` becomes `"..."` with `keep` 0.
pub(crate) fn cut_quoted(text: &str, keep: usize) -> String {
    let mut out = String::with_capacity(text.len().min(1024));
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' {
            continue;
        }
        let (mut kept, mut cut, mut escaped) = (0, false, false);
        for c in chars.by_ref() {
            if !escaped && c == '"' {
                if cut {
                    out.push_str("...");
                }
                out.push('"');
                break;
            }
            escaped = !escaped && c == '\\';
            if kept < keep {
                out.push(c);
                kept += 1;
            } else {
                cut = true;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The lines `log` writes through ratd's layer in `form` (the text form without its time),
    /// the writer aside.
    fn lines_in(form: Form, level: LogLevel, log: impl FnOnce()) -> String {
        use tracing_subscriber::filter::FilterExt;
        use tracing_subscriber::layer::{Layer, SubscriberExt};
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let layer = tracing_subscriber::fmt::layer()
            .with_writer(move || OneLine {
                inner: writer.clone(),
                colors: false,
            })
            .with_ansi(false)
            .with_target(false);
        let filter = filter(level).and(ClientGone);
        match form {
            Form::Journal => tracing::subscriber::with_default(
                tracing_subscriber::registry()
                    .with(layer.event_format(JournalFormat).with_filter(filter)),
                log,
            ),
            Form::Text => tracing::subscriber::with_default(
                tracing_subscriber::registry().with(layer.without_time().with_filter(filter)),
                log,
            ),
        }
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    fn journal_lines(level: LogLevel, log: impl FnOnce()) -> String {
        lines_in(Form::Journal, level, log)
    }

    #[test]
    fn journal_lines_carry_a_priority_and_no_time() {
        let lines = journal_lines(LogLevel::Debug, || {
            tracing::error!(tenant = "prod", "the terminals died too often");
            tracing::warn!(path = "/etc/rat", "bundle writable");
            tracing::info!(tenant = "prod", address = "[::]:7281", "ratd serving");
            tracing::debug!(session = "alice", method = "tools/call", "MCP request");
            tracing::trace!("trace");
        });
        insta::assert_snapshot!(lines, @r#"
        <3>the terminals died too often tenant="prod"
        <4>bundle writable path="/etc/rat"
        <6>ratd serving tenant="prod" address="[::]:7281"
        <7>MCP request session="alice" method="tools/call"
        "#);
    }

    #[test]
    fn library_chatter_is_kept_for_debug() {
        let at = |level| {
            journal_lines(level, || {
                tracing::info!(target: "rmcp::transport", "serving a stateless request");
                tracing::info!(target: "hyper::proto", "connection");
                tracing::info!(target: "rustls::server", "handshake");
                tracing::warn!(target: "rmcp::service", "a real problem");
                tracing::info!(target: "ratd", "ratd serving");
            })
        };
        insta::assert_snapshot!(at(LogLevel::Info), @r"
        <4>a real problem
        <6>ratd serving
        ");
        assert_eq!(at(LogLevel::Debug).lines().count(), 5);
        assert_eq!(at(LogLevel::Warn), "<4>a real problem\n");
    }

    #[test]
    fn an_event_is_one_line_whatever_it_holds() {
        let lines = journal_lines(LogLevel::Info, || {
            // As rmcp logs a JSON-RPC id a client chose.
            let id = "1\n<3>crash budget spent\r\u{1b}[2J\0";
            tracing::warn!(target: "rmcp::service", %id, "response send failed");
            tracing::warn!("a message\nsplit\tby a tab");
            tracing::info!("{}", "x".repeat(MAX_LINE + 100));
        });
        let lines: Vec<&str> = lines.lines().collect();
        assert_eq!(lines.len(), 3, "{lines:#?}");
        assert_eq!(
            lines[0],
            r"<4>response send failed id=1\n<3>crash budget spent\r\u{1b}[2J\0"
        );
        assert_eq!(lines[1], "<4>a message\\nsplit\tby a tab");
        assert_eq!(
            lines[2],
            format!(
                "<6>{}... (line cut: {} bytes)",
                "x".repeat(MAX_LINE - 3),
                MAX_LINE + 103
            )
        );
    }

    #[test]
    fn no_span_prefixes_a_line() {
        let lines = lines_in(Form::Text, LogLevel::Debug, || {
            let span = tracing::info_span!(target: "rmcp::service", "serve_inner");
            let _entered = span.enter();
            tracing::info!(tool = "list_windows", "call list_windows");
        });
        assert_eq!(lines, " INFO call list_windows tool=\"list_windows\"\n");
    }

    #[test]
    fn a_client_gone_is_no_error_of_ratd() {
        let lines = journal_lines(LogLevel::Info, || {
            tracing::error!(target: "rmcp::service", error = "channel closed", "failed to send pending response during drain");
            tracing::error!(target: "rmcp::service", error = "x", "response send task failed");
            tracing::error!(target: "ratd", "failed to send pending response during drain");
        });
        insta::assert_snapshot!(lines, @r#"
        <3>response send task failed error="x"
        <3>failed to send pending response during drain
        "#);
    }

    #[test]
    fn the_stream_is_matched_by_device_and_inode() {
        assert!(names_stream(OsStr::new("64768:123456"), 64768, 123456));
        assert!(!names_stream(OsStr::new("64768:123457"), 64768, 123456));
        assert!(!names_stream(OsStr::new("1:123456"), 64768, 123456));
        assert!(!names_stream(OsStr::new("garbage"), 64768, 123456));
        assert!(!names_stream(OsStr::new(""), 0, 0));
    }

    #[test]
    fn the_exit_error_is_an_error_in_the_journal() {
        let error = "can not listen on :7281: address in use";
        assert_eq!(
            Form::Journal.error_line(&error),
            "<3>ratd: can not listen on :7281: address in use"
        );
        assert_eq!(
            Form::Text.error_line(&error),
            "ratd: can not listen on :7281: address in use"
        );
    }

    #[test]
    fn quoted_values_are_cut() {
        let serde = r#"invalid type: string "hunter2-KEYS", expected a sequence"#;
        assert_eq!(
            cut_quoted(serde, 0),
            r#"invalid type: string "...", expected a sequence"#
        );
        assert_eq!(cut_quoted(serde, 64), serde);
        assert_eq!(
            cut_quoted(serde, 4),
            r#"invalid type: string "hunt...", expected a sequence"#
        );
        assert_eq!(cut_quoted(r#"a "b\"c" d "" e"#, 0), r#"a "..." d "" e"#);
        assert_eq!(cut_quoted("no quotes", 0), "no quotes");
    }

    #[test]
    fn values_an_agent_gives_can_not_forge_a_line() {
        let log = |value: &str| call_line("read_file", &[("path", value.to_owned())]);
        assert_eq!(log("/tmp/notes.txt"), "call read_file path=/tmp/notes.txt");
        assert_eq!(log("~/é/ü"), "call read_file path=~/é/ü");
        assert_eq!(
            log("/tmp/x\n2026-11-30T00:00:00Z  INFO call FORGED session=admin"),
            r#"call read_file path="/tmp/x\n2026-11-30T00:00:00Z  INFO call FORGED session=admin""#
        );
        assert_eq!(log("/tmp/a\0b"), r#"call read_file path="/tmp/a\0b""#);
        assert_eq!(
            log("/tmp/\u{1b}[31mred"),
            r#"call read_file path="/tmp/\u{1b}[31mred""#
        );
        assert_eq!(log("/tmp/my file"), r#"call read_file path="/tmp/my file""#);
        assert_eq!(log("a=b\"c\\"), r#"call read_file path="a=b\"c\\""#);
        assert_eq!(log("\u{202e}evil"), r#"call read_file path="\u{202e}evil""#);
        assert_eq!(log(""), r#"call read_file path="""#);
        let long = "/".to_owned() + &"é".repeat(200);
        assert_eq!(
            log(&long),
            format!(
                r#"call read_file path="/{}... (401 bytes)""#,
                "é".repeat(127)
            )
        );
    }
}
