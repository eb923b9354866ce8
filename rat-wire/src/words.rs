//! Words shared by the tools, ratd and rat: how long ago, in the units agents read, and the
//! system's reason for an error, as strerror words it.

use std::io;

/// A duration told to agents in its largest unit: `12s`, `3m`, `2h`, then days beyond two days
/// (`3d`). Models do not know the current time, so times are told relative to now. A negative
/// count (a clock set back) is `0s`.
pub fn ago(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..172_800 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
    }
}

/// The system's reason for the error `code`, as strerror(3) words it in the C locale, without
/// Rust's ` (os error N)`, its first letter lowered as the kernel's own words and Go spell errors
/// (`No space left on device` becomes `no space left on device`).
pub fn os_reason(code: i32) -> String {
    let message = io::Error::from_raw_os_error(code).to_string();
    let reason = message
        .rsplit_once(" (os error ")
        .map_or(message.as_str(), |(reason, _)| reason);
    lower_first(reason)
}

/// `text` with its first letter lowered.
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
