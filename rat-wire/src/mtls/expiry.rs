//! Expiry: how long a bundle stays valid, and the warning every side gives once less than a
//! year remains (ratd at startup and every 24 hours, rat at startup, rat-tool when inspecting
//! or checking).

use std::time::{Duration, SystemTime};

use super::cert::format_time;

/// How long before expiry every side warns: a year. An expired bundle stops every client at
/// once, years after anyone remembers how it was made.
pub const EXPIRY_WARNING: Duration = Duration::from_secs(365 * 24 * 60 * 60);

/// The validity left at `now` for a side expiring at `not_after`: `None` once expired (or at
/// the very second of expiry), else the time left.
pub fn validity_left(not_after: SystemTime, now: SystemTime) -> Option<Duration> {
    not_after
        .duration_since(now)
        .ok()
        .filter(|left| !left.is_zero())
}

/// Whether a side expiring at `not_after` must warn at `now`: less than [`EXPIRY_WARNING`] left
/// (or expired).
pub fn needs_expiry_warning(not_after: SystemTime, now: SystemTime) -> bool {
    validity_left(not_after, now).is_none_or(|left| left < EXPIRY_WARNING)
}

/// `YYYY-MM-DD HH:MM:SS UTC (N days left)`, or `... UTC (expired)`: how rat-tool tells a
/// validity. Days are whole days, rounded down.
pub fn describe_validity(not_after: SystemTime, now: SystemTime) -> String {
    match validity_left(not_after, now) {
        Some(left) => format!(
            "{} ({} days left)",
            format_time(not_after),
            left.as_secs() / 86_400
        ),
        None => format!("{} (expired)", format_time(not_after)),
    }
}

/// The warning text every side logs or prints when [`needs_expiry_warning`] holds, `None`
/// otherwise. The same words everywhere, so that an admin recognises it.
pub fn expiry_warning(not_after: SystemTime, now: SystemTime) -> Option<String> {
    needs_expiry_warning(not_after, now).then(|| {
        format!(
            "the bundle expires on {}: less than a year left, and an expired bundle stops every client at once; generate a new one (rat-tool bundle generate) and deploy it to every side",
            describe_validity(not_after, now)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_and_warnings() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let day = Duration::from_secs(86_400);
        assert_eq!(validity_left(now + day, now), Some(day));
        assert_eq!(validity_left(now, now), None);
        assert_eq!(validity_left(now - day, now), None);
        assert!(!needs_expiry_warning(now + 400 * day, now));
        assert!(needs_expiry_warning(now + 364 * day, now));
        assert!(needs_expiry_warning(now - day, now));
        assert_eq!(expiry_warning(now + 400 * day, now), None);
        assert_eq!(
            expiry_warning(now + 100 * day + Duration::from_secs(5), now).unwrap(),
            "the bundle expires on 2001-12-18 01:46:45 UTC (100 days left): less than a year left, and an expired bundle stops every client at once; generate a new one (rat-tool bundle generate) and deploy it to every side"
        );
        assert_eq!(
            describe_validity(now - day, now),
            "2001-09-08 01:46:40 UTC (expired)"
        );
    }
}
