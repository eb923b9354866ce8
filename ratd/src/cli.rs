//! The command line of ratd (`docs/design/transport.md`, Configuration):
//! `ratd --bundle DIR [--listen :7281] [--read-budget 64KiB] [--log-level info]`.
//!
//! No configuration file nor environment variable: nothing ratd needs is secret on a command
//! line.

use std::fmt;
use std::net::IpAddr;
use std::path::PathBuf;

use clap::Parser;
use rat_core::result::ReadBudget;

/// ratd's flags, parsed by clap. [`Args::config`] turns them into a [`crate::Config`].
#[derive(Debug, Clone, Parser)]
#[command(
    name = "ratd",
    version,
    about = "Serve persistent terminals and files to AI agents: rat's MCP server, one per tenant.",
    long_about = "Serve persistent terminals and files to AI agents: rat's MCP server, one per \
tenant.\n\nratd owns the tmux server of its tenant (socket rat-TENANT) and serves rat's \
tools as MCP over Streamable HTTP at https://HOST:PORT/mcp, behind mutual TLS: only clients \
holding a certificate of the bundle get in, each into the tmux session its certificate names. \
The tenant is the name in the server certificate of the bundle.\n\nMake a bundle with \
`rat-tool bundle generate --tenant NAME --client NAME --output DIR`, then run \
`ratd --bundle DIR/server`. SIGTERM or SIGINT stops ratd and every terminal it started.",
    after_help = "Examples:\n  ratd --bundle /etc/rat/prod/server\n  ratd --bundle ~/rat/dev/server \
--listen 127.0.0.1:7281 --read-budget 20KiB"
)]
pub struct Args {
    /// The server directory of a bundle (ca.crt, server.crt, server.key), as made by
    /// `rat-tool bundle generate`: DIR/server. The tenant served is the one its server
    /// certificate names.
    #[arg(long, value_name = "DIR")]
    pub bundle: PathBuf,

    /// Where to listen: HOST:PORT, `[IPV6]:PORT`, or :PORT for every interface (IPv6 and IPv4
    /// together, IPv4 alone where IPv6 is disabled). Mutual TLS guards every address.
    #[arg(long, value_name = "ADDRESS", default_value = ":7281", value_parser = parse_listen)]
    pub listen: Listen,

    /// The most a result of read_window or read_file holds, header included: a size with its
    /// unit (64KiB, 1MiB, 65536B; decimal units such as 64KB and bits such as 512Kb are
    /// converted). At least 20KiB, which a screen of 4-byte characters needs; at most 16MiB.
    #[arg(long, value_name = "SIZE", default_value = "64KiB", value_parser = parse_read_budget)]
    pub read_budget: ReadBudget,

    /// The most connections of clients held at once: beyond, a new client waits after its TLS
    /// handshake until one closes (logged). Connections before their handshake are bounded
    /// apart. Each takes a file descriptor: ratd raises its soft file
    /// limit to the hard one at start, and warns when that is too low for this many.
    #[arg(long, value_name = "N", default_value_t = crate::DEFAULT_MAX_CONNECTIONS, value_parser = parse_max_connections)]
    pub max_connections: usize,

    /// Secrets in answers: mask (the default) replaces each by a placeholder naming its kind,
    /// put back when the agent sends it in send_text or write_file; show leaves output raw.
    /// Logged at start (docs/design/secrets.md).
    #[arg(long, value_name = "MODE", default_value = "mask")]
    pub secrets: Secrets,

    /// The least severe log lines written to stderr. debug adds one line per MCP request.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub log_level: LogLevel,
}

impl Args {
    /// The configuration [`crate::run`] takes.
    pub fn config(&self) -> crate::Config {
        crate::Config {
            bundle: self.bundle.clone(),
            listen: self.listen.clone(),
            read_budget: self.read_budget,
            home: None,
            max_connections: self.max_connections,
            secrets: match self.secrets {
                Secrets::Mask => rat_core::secrets::Mode::Mask,
                Secrets::Show => rat_core::secrets::Mode::Show,
            },
        }
    }
}

/// The values of `--secrets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Secrets {
    /// Masked in every answer, placeholders restored in every input.
    Mask,
    /// Raw output: nothing masked, nothing restored.
    Show,
}

/// The levels of `--log-level`, shared with rat.
pub use rat_wire::connect::LogLevel;

/// The `tracing_subscriber::EnvFilter` directives for `level`. rmcp logs every
/// stateless request at info level (`docs/design/status-and-logs.md`), hyper and rustls their
/// connections: only their warnings and errors are kept below debug.
pub fn filter_directives(level: LogLevel) -> &'static str {
    match level {
        LogLevel::Error => "error",
        LogLevel::Warn => "warn",
        LogLevel::Info => "info,rmcp=warn,hyper=warn,hyper_util=warn,h2=warn,rustls=warn",
        // rmcp's own debug and trace lines print every request and response whole (texts,
        // keys, file contents): never below info, whatever the level (the logs never hold
        // content: `docs/design/status-and-logs.md`).
        LogLevel::Debug => "debug,rmcp=info,hyper=info,h2=info,rustls=info",
        LogLevel::Trace => "trace,rmcp=info",
    }
}

/// A listen address as `--listen` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listen {
    /// `:PORT`: every interface, IPv6 and IPv4 together, falling back to IPv4 alone where
    /// IPv6 is disabled, where a literal `[::]` would fail (`docs/design/transport.md`, Serving).
    AllInterfaces {
        /// The TCP port; 0 picks a free one.
        port: u16,
    },
    /// `HOST:PORT` or `[IPV6]:PORT`: a literal address or a host name (resolved at startup,
    /// ratd listening on each address it resolves to).
    Host {
        /// The host, without brackets.
        host: String,
        /// The TCP port; 0 picks a free one.
        port: u16,
    },
}

impl fmt::Display for Listen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Listen::AllInterfaces { port } => write!(f, ":{port}"),
            Listen::Host { host, port } if host.contains(':') => write!(f, "[{host}]:{port}"),
            Listen::Host { host, port } => write!(f, "{host}:{port}"),
        }
    }
}

/// Parses `--listen`: `:PORT`, `HOST:PORT` or `[IPV6]:PORT`.
///
/// Errors tell what was read and the forms accepted.
pub fn parse_listen(value: &str) -> Result<Listen, String> {
    let forms = "expected :PORT (every interface), HOST:PORT or [IPV6]:PORT, such as :7281 or \
127.0.0.1:7281";
    let Some((host, port)) = value.rsplit_once(':') else {
        if value.parse::<u16>().is_ok() {
            return Err(format!(
                "{value:?} is a port alone: write :{value} to listen on every interface, or \
HOST:{value}"
            ));
        }
        return Err(format!("{value:?} has no port: {forms}"));
    };
    let port: u16 = port
        .parse()
        .map_err(|_| format!("{port:?} is not a TCP port (0 to 65535): {forms}"))?;
    if host.is_empty() {
        return Ok(Listen::AllInterfaces { port });
    }
    let host = if let Some(inner) = host.strip_prefix('[') {
        let Some(inner) = inner.strip_suffix(']') else {
            return Err(format!(
                "{value:?} opens a bracket it does not close: {forms}"
            ));
        };
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("{inner:?} is not an IPv6 address: {forms}"));
        }
        inner
    } else {
        if host.contains(':') {
            return Err(format!(
                "{value:?}: an IPv6 address goes between brackets, such as [::1]:7281"
            ));
        }
        host
    };
    if host.parse::<IpAddr>().is_err()
        && !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
    {
        return Err(format!(
            "{host:?} is neither an IP address nor a host name: {forms}"
        ));
    }
    Ok(Listen::Host {
        host: host.to_owned(),
        port,
    })
}

/// Parses `--max-connections`: a count from 16 to 1048576.
pub fn parse_max_connections(value: &str) -> Result<usize, String> {
    let n: usize = value.trim().parse().map_err(|_| {
        format!("{value:?} is not a count: give a number of connections, such as 4096")
    })?;
    if !(16..=1 << 20).contains(&n) {
        return Err(format!(
            "{n} connections: give a cap from 16 to 1048576 (the default, 4096, suits most machines)"
        ));
    }
    Ok(n)
}

/// The largest read budget ratd accepts: 16 MiB. A result beyond fills the context of any
/// model (a million tokens is about 4 MiB of text) and is cut or diverted by harnesses.
pub const MAX_READ_BUDGET: usize = 16 * 1024 * 1024;

/// Parses `--read-budget`: a size with its unit, read by the `parse-size` crate (64KiB, 1MiB,
/// 65536B, 64KB = 64000 bytes), plus bits where the unit ends in a lowercase `b` (512Kb = 512
/// kilobits = 64000 bytes, 64Kib = 64 kibibits), as the Go build's cunits reads them. A number
/// without a unit is refused, naming the units; under 20 KiB is refused telling the size read
/// ([`ReadBudget::new`]), and for bits what was probably meant; over [`MAX_READ_BUDGET`] is
/// refused, saying why.
pub fn parse_read_budget(value: &str) -> Result<ReadBudget, String> {
    let trimmed = value.trim();
    let units = "use a size with its unit, such as 64KiB, 1MiB or 65536B";
    if trimmed.is_empty() {
        return Err(format!("no size given: {units}"));
    }
    if trimmed.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!(
            "{trimmed} has no unit: {units} (B for bytes, KiB, MiB for binary units, KB, MB for \
decimal ones)"
        ));
    }
    // parse-size reads units without regard to case: a lowercase final b (bits in cunits and
    // in networking) is taken out and the rest divided by 8.
    let is_bits = trimmed.ends_with('b')
        && trimmed[..trimmed.len() - 1]
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphabetic());
    let parsed = if is_bits {
        parse_size::Config::new()
            .with_byte_suffix(parse_size::ByteSuffix::Deny)
            .parse_size(&trimmed[..trimmed.len() - 1])
            .map(|bits| bits / 8)
    } else {
        parse_size::parse_size(trimmed)
    };
    let bytes = parsed.map_err(|error| format!("{value:?} is not a size ({error}): {units}"))?;
    let too_large = || {
        format!(
            "the read budget must be at most 16 MiB (16777216 bytes): {trimmed} was given; a \
result beyond fills the context of any model, and harnesses cut or divert it"
        )
    };
    let bytes = usize::try_from(bytes).map_err(|_| too_large())?;
    if bytes > MAX_READ_BUDGET {
        return Err(too_large());
    }
    ReadBudget::new(bytes).map_err(|error| {
        if is_bits {
            format!("{error} ({})", bits_hint(trimmed, bytes))
        } else {
            error.to_string()
        }
    })
}

/// What a size in bits was read as, and the size in bytes probably meant: `64kib is kibibits
/// (8 KiB): did you mean 64KiB?`.
fn bits_hint(value: &str, bytes: usize) -> String {
    let unit = &value[value
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .len()..];
    let lower = unit.to_ascii_lowercase();
    let name = match lower.as_str() {
        "kib" => "kibibits",
        "mib" => "mebibits",
        "gib" => "gibibits",
        "kb" => "kilobits",
        "mb" => "megabits",
        "gb" => "gigabits",
        _ => "bits",
    };
    let size = [("MiB", 1usize << 20), ("KiB", 1 << 10)]
        .into_iter()
        .find(|(_, unit)| bytes >= *unit && bytes.is_multiple_of(*unit))
        .map_or_else(
            || format!("{bytes} bytes"),
            |(name, unit)| format!("{} {name}", bytes / unit),
        );
    let mut meant = value[..value.len() - unit.len()].to_owned();
    let mut chars = unit.chars();
    if let Some(first) = chars.next() {
        meant.push(first.to_ascii_uppercase());
    }
    let rest: String = chars.collect();
    meant.push_str(&rest[..rest.len() - 1]);
    meant.push('B');
    format!("{value} is {name} ({size}): did you mean {meant}?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_budget_units() {
        let bytes = |s: &str| parse_read_budget(s).map(ReadBudget::bytes);
        assert_eq!(bytes("64KiB"), Ok(65536));
        assert_eq!(bytes("1MiB"), Ok(1048576));
        assert_eq!(bytes("65536B"), Ok(65536));
        assert_eq!(bytes("64KB"), Ok(64000));
        assert_eq!(bytes("20KiB"), Ok(20480));
        assert_eq!(bytes("512Kb"), Ok(64000));
        assert_eq!(bytes("1Mib"), Ok(131072));
        assert_eq!(bytes("16MiB"), Ok(16777216));
    }

    #[test]
    fn read_budget_refusals() {
        insta::assert_snapshot!(parse_read_budget("64Kb").unwrap_err(), @"the read budget must be at least 20 KiB (20480 bytes): 8000 bytes were given (64Kb is kilobits (8000 bytes): did you mean 64KB?)");
        insta::assert_snapshot!(parse_read_budget("64kib").unwrap_err(), @"the read budget must be at least 20 KiB (20480 bytes): 8192 bytes were given (64kib is kibibits (8 KiB): did you mean 64KiB?)");
        insta::assert_snapshot!(parse_read_budget("16KiB").unwrap_err(), @"the read budget must be at least 20 KiB (20480 bytes): 16384 bytes were given");
        insta::assert_snapshot!(parse_read_budget("20KB").unwrap_err(), @"the read budget must be at least 20 KiB (20480 bytes): 20000 bytes were given");
        insta::assert_snapshot!(parse_read_budget("65536").unwrap_err(), @"65536 has no unit: use a size with its unit, such as 64KiB, 1MiB or 65536B (B for bytes, KiB, MiB for binary units, KB, MB for decimal ones)");
        insta::assert_snapshot!(parse_read_budget("100000GiB").unwrap_err(), @"the read budget must be at most 16 MiB (16777216 bytes): 100000GiB was given; a result beyond fills the context of any model, and harnesses cut or divert it");
        insta::assert_snapshot!(parse_read_budget("17MiB").unwrap_err(), @"the read budget must be at most 16 MiB (16777216 bytes): 17MiB was given; a result beyond fills the context of any model, and harnesses cut or divert it");
        insta::assert_snapshot!(parse_read_budget("lots").unwrap_err(), @r#""lots" is not a size (invalid digit found in string): use a size with its unit, such as 64KiB, 1MiB or 65536B"#);
        insta::assert_snapshot!(parse_read_budget("").unwrap_err(), @"no size given: use a size with its unit, such as 64KiB, 1MiB or 65536B");
    }

    #[test]
    fn listen_forms() {
        assert_eq!(
            parse_listen(":7281"),
            Ok(Listen::AllInterfaces { port: 7281 })
        );
        assert_eq!(
            parse_listen("127.0.0.1:0"),
            Ok(Listen::Host {
                host: "127.0.0.1".into(),
                port: 0
            })
        );
        assert_eq!(
            parse_listen("[::1]:7281"),
            Ok(Listen::Host {
                host: "::1".into(),
                port: 7281
            })
        );
        assert_eq!(
            parse_listen("localhost:7281"),
            Ok(Listen::Host {
                host: "localhost".into(),
                port: 7281
            })
        );
        assert_eq!(
            parse_listen("[::1]:7281").unwrap().to_string(),
            "[::1]:7281"
        );
    }

    #[test]
    fn listen_refusals() {
        insta::assert_snapshot!(parse_listen("7281").unwrap_err(), @r#""7281" is a port alone: write :7281 to listen on every interface, or HOST:7281"#);
        insta::assert_snapshot!(parse_listen("localhost").unwrap_err(), @r#""localhost" has no port: expected :PORT (every interface), HOST:PORT or [IPV6]:PORT, such as :7281 or 127.0.0.1:7281"#);
        insta::assert_snapshot!(parse_listen(":http").unwrap_err(), @r#""http" is not a TCP port (0 to 65535): expected :PORT (every interface), HOST:PORT or [IPV6]:PORT, such as :7281 or 127.0.0.1:7281"#);
        insta::assert_snapshot!(parse_listen("::1:7281").unwrap_err(), @r#""::1:7281": an IPv6 address goes between brackets, such as [::1]:7281"#);
        insta::assert_snapshot!(parse_listen("[::1:7281").unwrap_err(), @r#""[::1:7281" opens a bracket it does not close: expected :PORT (every interface), HOST:PORT or [IPV6]:PORT, such as :7281 or 127.0.0.1:7281"#);
    }
}
