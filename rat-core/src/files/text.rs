//! The words of the file tools: sizes, relative times, counts. One function each, unit-tested,
//! so that every result says them the same way.

use std::time::{Duration, SystemTime};

/// A size in bytes as agents and admins read it: in its largest binary unit, with one decimal at
/// most, rounded (`500 B`, `14 B`, `78.1 KiB`, `64 KiB`, `3 GiB`).
pub fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0} {}", UNITS[unit])
    } else {
        format!("{rounded:.1} {}", UNITS[unit])
    }
}

/// A duration in its largest unit, as list_windows tells activity: `12s`, `5m`, `3h`, then days
/// beyond two days (`47h`, `2d`). Seconds are rounded to the nearest (2.6 s is `3s`, not the
/// `2s` of a truncation), then truncated to the unit: `59m` until the hour is complete.
pub fn since_text(elapsed: Duration) -> String {
    let seconds = (elapsed.as_millis() + 500) / 1000;
    rat_wire::words::ago(i64::try_from(seconds).unwrap_or(i64::MAX))
}

/// How long ago `modified` was at `now`, as [`since_text`] says it. A time in the future (a clock
/// set back, a file touched with a date to come) is told as `0s`: models do not know the current
/// time, and "in the future" would only puzzle them.
pub fn ago_text(modified: SystemTime, now: SystemTime) -> String {
    since_text(now.duration_since(modified).unwrap_or_default())
}

/// `count` and `noun`, in the plural unless one: `1 line`, `0 lines`, `3 lines`.
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_their_largest_unit_with_one_decimal_at_most() {
        let cases = [
            (0, "0 B"),
            (14, "14 B"),
            (1023, "1023 B"),
            (1024, "1 KiB"),
            (80_000, "78.1 KiB"),
            (100 * 1024 + 13, "100 KiB"),
            (64 * 1024, "64 KiB"),
            (1024 * 1024 - 1, "1024 KiB"),
            (1024 * 1024, "1 MiB"),
            (3 << 30, "3 GiB"),
            (2 << 30, "2 GiB"),
            ((2 << 30) + 200 * 1024 * 1024, "2.2 GiB"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(size_text(bytes), expected, "{bytes} bytes");
        }
    }

    #[test]
    fn durations_in_their_largest_unit() {
        let cases = [
            (0, "0s"),
            (3, "3s"),
            (59, "59s"),
            (60, "1m"),
            (3599, "59m"),
            (3600, "1h"),
            (47 * 3600 + 3599, "47h"),
            (48 * 3600, "2d"),
            (10 * 86_400 + 5, "10d"),
        ];
        for (seconds, expected) in cases {
            assert_eq!(
                since_text(Duration::from_secs(seconds)),
                expected,
                "{seconds} s"
            );
        }
        // Seconds rounded to the nearest, never up from 3.06 s.
        for (millis, expected) in [(3060, "3s"), (3499, "3s"), (3500, "4s"), (3999, "4s")] {
            assert_eq!(
                since_text(Duration::from_millis(millis)),
                expected,
                "{millis} ms"
            );
        }
    }

    #[test]
    fn a_time_in_the_future_is_now() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        assert_eq!(ago_text(now + Duration::from_secs(30), now), "0s");
        assert_eq!(ago_text(now - Duration::from_secs(3), now), "3s");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(0, "line"), "0 lines");
        assert_eq!(plural(1, "line"), "1 line");
        assert_eq!(plural(20_000, "line"), "20000 lines");
    }
}
