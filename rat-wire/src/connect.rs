//! The defaults ratd and its clients share (the port, the endpoint path) and the
//! `--server`/`--bundle` flags shared by rat and `rat-tool check`, a clap `Args` struct each
//! flattens into its command (`#[command(flatten)]`): a harness command line is checked by
//! copying it (`docs/design/bridge.md`, One mode).
//!
//! ```text
//! DEFAULT_PORT: u16 = 7281, ENDPOINT_PATH: &str = "/mcp"
//! #[derive(clap::Args)] ServerArgs { server: ServerAddress (--server HOST:PORT, required),
//!                                     bundle: PathBuf (--bundle DIR, required) }
//! ServerArgs::url() -> String                     // https://HOST:PORT/mcp
//! ServerAddress: FromStr + Display (HOST:PORT, IPv6 in brackets), host(), port(), url()
//! LogLevel: clap::ValueEnum (error, warn, info, debug, trace), level_filter()
//! ```

use std::fmt;
use std::net::Ipv6Addr;
use std::path::PathBuf;
use std::str::FromStr;

/// The port ratd listens on by default.
pub const DEFAULT_PORT: u16 = 7281;

/// The path of ratd's MCP endpoint: the scheme is always https and the path always this.
pub const ENDPOINT_PATH: &str = "/mcp";

/// The levels of `--log-level`, ratd's and rat's: the least severe lines written on stderr. Each
/// says what ratd writes at it, as `ratd --help` shows; rat takes the four from debug to error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogLevel {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warn,
    /// Lifecycle and one line per tool call (the default).
    Info,
    /// Also one line per MCP request, and rmcp's, hyper's and rustls' info lines.
    Debug,
    /// Everything, including hyper's traces (rmcp's content-bearing lines never).
    Trace,
}

impl LogLevel {
    /// The least severe level of tracing kept at this level.
    pub fn level_filter(self) -> tracing::level_filters::LevelFilter {
        use tracing::level_filters::LevelFilter;
        match self {
            LogLevel::Error => LevelFilter::ERROR,
            LogLevel::Warn => LevelFilter::WARN,
            LogLevel::Info => LevelFilter::INFO,
            LogLevel::Debug => LevelFilter::DEBUG,
            LogLevel::Trace => LevelFilter::TRACE,
        }
    }
}

/// The ratd to reach and the client directory to present to it: the flags of rat, declared
/// once and shared with `rat-tool check` (`#[command(flatten)]`), so that a harness command line
/// is checked by copying it, with the same names and the same checks. No default server: which
/// machine to reach is the whole point of the configuration.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args)]
pub struct ServerArgs {
    /// The address of ratd, HOST:PORT (an IPv6 address between brackets: `[::1]:7281`); not a
    /// URL: the scheme is always https and the path always /mcp.
    #[arg(long, value_name = "HOST:PORT")]
    pub server: ServerAddress,
    /// The client directory of a bundle, which names the session (DIR/clients/NAME, from
    /// rat-tool bundle generate).
    #[arg(long, value_name = "DIR")]
    pub bundle: PathBuf,
}

impl ServerArgs {
    /// The URL of ratd's endpoint: `https://HOST:PORT/mcp`.
    pub fn url(&self) -> String {
        self.server.url()
    }
}

/// A server address, `HOST:PORT`: a host name, an IPv4 address, or an IPv6 address between
/// brackets, and a port from 1 to 65535. Displayed as given (brackets kept for IPv6).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerAddress {
    host: String,
    port: u16,
}

impl ServerAddress {
    /// The host, without brackets for an IPv6 address (what a resolver or `connect` takes
    /// together with [`port`](Self::port)).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of ratd's endpoint at this address: `https://HOST:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("https://{self}{ENDPOINT_PATH}")
    }
}

impl fmt::Display for ServerAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Why `--server` was refused: the message says what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid server {given:?}, expected HOST:PORT (an IPv6 address between brackets, ratd listens on port {DEFAULT_PORT} by default): {reason}"
)]
pub struct ServerAddressError {
    /// The value given.
    pub given: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FromStr for ServerAddress {
    type Err = ServerAddressError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |reason: String| ServerAddressError {
            given: s.to_owned(),
            reason,
        };
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(fail(format!(
                "not a URL: drop {scheme}://, the scheme is always https and the path always {ENDPOINT_PATH}"
            )));
        }
        if s.contains('/') {
            return Err(fail(format!("no path: the path is always {ENDPOINT_PATH}")));
        }
        let (host, port) = if let Some(rest) = s.strip_prefix('[') {
            let Some((host, after)) = rest.split_once(']') else {
                return Err(fail("missing ] after the IPv6 address".to_owned()));
            };
            if host.parse::<Ipv6Addr>().is_err() {
                return Err(fail(format!("{host:?} is not an IPv6 address")));
            }
            let Some(port) = after.strip_prefix(':') else {
                return Err(fail("missing port".to_owned()));
            };
            (host, port)
        } else {
            let Some((host, port)) = s.rsplit_once(':') else {
                return Err(fail("missing port".to_owned()));
            };
            if host.contains(':') {
                return Err(fail(format!(
                    "an IPv6 address goes between brackets: [{host}]:{port}"
                )));
            }
            (host, port)
        };
        if host.is_empty() {
            return Err(fail("missing host".to_owned()));
        }
        if host.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(fail(format!("{host:?} is not a host name")));
        }
        let port = match port.parse::<u16>() {
            Ok(0) | Err(_) => return Err(fail(format!("invalid port {port:?}"))),
            Ok(port) => port,
        };
        Ok(ServerAddress {
            host: host.to_owned(),
            port,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        for (given, shown, host) in [
            ("example.com:7281", "example.com:7281", "example.com"),
            ("127.0.0.1:1", "127.0.0.1:1", "127.0.0.1"),
            ("[::1]:7281", "[::1]:7281", "::1"),
            ("[fe80::1]:65535", "[fe80::1]:65535", "fe80::1"),
        ] {
            let a: ServerAddress = given.parse().unwrap();
            assert_eq!(a.to_string(), shown);
            assert_eq!(a.host(), host);
            assert_eq!(a.url(), format!("https://{shown}/mcp"));
        }
    }

    #[test]
    fn refusals() {
        let errors: Vec<String> = [
            "https://example.com:7281/mcp",
            "example.com:7281/mcp",
            "example.com",
            "::1:7281",
            "[::1]",
            "[::1:7281",
            "[nothost]:7281",
            ":7281",
            "example.com:0",
            "example.com:65536",
            "example.com:http",
        ]
        .iter()
        .map(|s| s.parse::<ServerAddress>().unwrap_err().to_string())
        .collect();
        insta::assert_snapshot!(errors.join("\n"));
    }
}
