//! Draining the standard error of a child tmux: every chunk logged, part of the text kept for
//! the error that may follow.

use std::sync::{Arc, Mutex};

use tokio::io::AsyncReadExt;
use tokio::process::ChildStderr;

/// What a drain keeps of the text it reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Keep {
    /// Each chunk read while fewer than this many bytes are kept: the start of the text.
    First(usize),
    /// The last this many bytes, cut at a character boundary: the end of the text.
    Last(usize),
}

/// How a child's standard error is drained.
#[derive(Debug)]
pub(crate) struct Drain {
    /// The size of each read; each chunk read is one log event.
    pub(crate) chunk: usize,
    /// What is kept of the text.
    pub(crate) keep: Keep,
    /// The message of each log event.
    pub(crate) message: &'static str,
    /// The socket each log event names, if any.
    pub(crate) socket: Option<String>,
}

/// Reads `pipe` (when there is one) in a task of its own until its end or a read error:
/// each chunk, decoded as lossy UTF-8, logged at debug level and kept as `drain.keep` says.
/// Returns the text kept, which grows as the task reads.
pub(crate) fn drain_stderr(pipe: Option<ChildStderr>, drain: Drain) -> Arc<Mutex<String>> {
    let kept = Arc::new(Mutex::new(String::new()));
    if let Some(mut pipe) = pipe {
        let text_kept = kept.clone();
        tokio::spawn(async move {
            let mut buf = vec![0u8; drain.chunk];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]);
                tracing::debug!(
                    socket = drain.socket.as_ref().map(tracing::field::display),
                    stderr = %text.trim_end(),
                    "{}",
                    drain.message
                );
                let mut kept = text_kept.lock().unwrap_or_else(|e| e.into_inner());
                keep(&mut kept, &text, drain.keep);
            }
        });
    }
    kept
}

/// Adds `text`, just read, to `kept` as `how` says.
fn keep(kept: &mut String, text: &str, how: Keep) {
    match how {
        Keep::First(most) => {
            if kept.len() < most {
                kept.push_str(text);
            }
        }
        Keep::Last(most) => {
            kept.push_str(text);
            if kept.len() > most {
                let mut cut = kept.len() - most;
                while !kept.is_char_boundary(cut) {
                    cut += 1;
                }
                kept.drain(..cut);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Keep, keep};

    #[test]
    fn first_keeps_whole_chunks_until_the_limit_is_reached() {
        let mut kept = String::new();
        for chunk in ["abc", "def", "ghi"] {
            keep(&mut kept, chunk, Keep::First(4));
        }
        assert_eq!(kept, "abcdef");
    }

    #[test]
    fn last_keeps_the_end_cut_at_a_character_boundary() {
        let mut kept = String::new();
        for chunk in ["abcd", "\u{e9}f"] {
            keep(&mut kept, chunk, Keep::Last(2));
        }
        // The cut would fall inside the two bytes of the e-acute: it goes whole.
        assert_eq!(kept, "f");
    }
}
