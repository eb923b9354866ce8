//! The inverse of the parser, for tests, fuzzing and fixtures (feature `test-support`).

use super::{Event, Notification};

/// Escapes pane bytes as tmux 3.3a does in `%output`: bytes below 0x20 and `\` as `\ooo`.
pub fn escape_output(data: &[u8], out: &mut Vec<u8>) {
    for &b in data {
        if b < 0x20 || b == b'\\' {
            out.extend_from_slice(&[
                b'\\',
                b'0' + (b >> 6),
                b'0' + ((b >> 3) & 7),
                b'0' + (b & 7),
            ]);
        } else {
            out.push(b);
        }
    }
}

/// The bytes tmux would print for `event`, each line ending with LF: the inverse of
/// [`Parser`](super::Parser) for events tmux can print (body lines without LF, names without
/// LF, a reply body holding no line equal to its own closing guard). For tests, fuzzing and
/// fixtures (feature `test-support`).
pub fn render(event: &Event) -> Vec<u8> {
    let mut out = Vec::new();
    match event {
        Event::Reply(r) => {
            let fields = format!(" {} {} {}", r.time, r.number, r.flags);
            out.extend_from_slice(b"%begin");
            out.extend_from_slice(fields.as_bytes());
            out.push(b'\n');
            for line in &r.lines {
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            out.extend_from_slice(if r.success { b"%end" } else { b"%error" });
            out.extend_from_slice(fields.as_bytes());
        }
        Event::Notification(n) => render_notification(n, &mut out),
    }
    out.push(b'\n');
    out
}

fn render_notification(n: &Notification, out: &mut Vec<u8>) {
    use Notification as N;
    let line = match n {
        N::Output { pane, data } => {
            out.extend_from_slice(format!("%output {pane} ").as_bytes());
            escape_output(data, out);
            return;
        }
        N::ExtendedOutput { pane, age_ms, data } => {
            out.extend_from_slice(format!("%extended-output {pane} {age_ms} : ").as_bytes());
            escape_output(data, out);
            return;
        }
        N::Pause { pane } => format!("%pause {pane}"),
        N::Continue { pane } => format!("%continue {pane}"),
        N::Exit { reason: None } => "%exit".to_owned(),
        N::Exit { reason: Some(r) } => format!("%exit {r}"),
        N::SessionChanged { session, name } => format!("%session-changed {session} {name}"),
        N::ClientSessionChanged {
            client,
            session,
            name,
        } => {
            format!("%client-session-changed {client} {session} {name}")
        }
        N::SessionRenamed { session, name } => format!("%session-renamed {session} {name}"),
        N::SessionsChanged => "%sessions-changed".to_owned(),
        N::SessionWindowChanged { session, window } => {
            format!("%session-window-changed {session} {window}")
        }
        N::WindowAdd { window } => format!("%window-add {window}"),
        N::UnlinkedWindowAdd { window } => format!("%unlinked-window-add {window}"),
        N::WindowClose { window } => format!("%window-close {window}"),
        N::UnlinkedWindowClose { window } => format!("%unlinked-window-close {window}"),
        N::WindowRenamed { window, name } => format!("%window-renamed {window} {name}"),
        N::UnlinkedWindowRenamed { window, name } => {
            format!("%unlinked-window-renamed {window} {name}")
        }
        N::WindowPaneChanged { window, pane } => format!("%window-pane-changed {window} {pane}"),
        N::LayoutChange {
            window,
            layout,
            visible_layout,
            flags,
        } => {
            // The raw bytes of a layout that did not parse, so the line renders as it came.
            let text = |l: &Result<super::Layout, super::BadLayout>| match l {
                Ok(layout) => layout.to_string().into_bytes(),
                Err(bad) => bad.text.clone(),
            };
            out.extend_from_slice(format!("%layout-change {window} ").as_bytes());
            out.extend_from_slice(&text(layout));
            out.push(b' ');
            out.extend_from_slice(&text(visible_layout));
            out.push(b' ');
            out.extend_from_slice(flags.as_bytes());
            return;
        }
        N::PaneModeChanged { pane } => format!("%pane-mode-changed {pane}"),
        N::ClientDetached { client } => format!("%client-detached {client}"),
        N::PasteBufferChanged { name } => format!("%paste-buffer-changed {name}"),
        N::PasteBufferDeleted { name } => format!("%paste-buffer-deleted {name}"),
        N::SubscriptionChanged {
            name,
            session,
            window,
            window_index,
            pane,
            value,
        } => {
            let dash = |o: Option<String>| o.unwrap_or_else(|| "-".to_owned());
            format!(
                "%subscription-changed {name} {session} {} {} {} : {value}",
                dash(window.map(|w| w.to_string())),
                dash(window_index.map(|i| i.to_string())),
                dash(pane.map(|p| p.to_string())),
            )
        }
        N::Message { message } => format!("%message {message}"),
        N::ConfigError { error } => format!("%config-error {error}"),
        N::Unknown { name, rest } => {
            out.push(b'%');
            out.extend_from_slice(name.as_bytes());
            if !rest.is_empty() {
                out.push(b' ');
                out.extend_from_slice(rest);
            }
            return;
        }
    };
    out.extend_from_slice(line.as_bytes());
}
