//! The listeners `--listen` names: dual stack where IPv6 is on, every address of a host name
//! (`docs/design/transport.md`, Serving).

use std::io;
use std::net::SocketAddr;

use tokio::net::TcpListener;

/// Binds the listeners `--listen` names (`docs/design/transport.md`, Serving).
///
/// `:PORT` binds `[::]:PORT` with IPV6_V6ONLY off (IPv6 and IPv4 together, as Go does for an
/// empty host), and `0.0.0.0:PORT` where IPv6 is disabled. A host name binds every address it
/// resolves to, on the same port (the port the first one got when 0 was asked).
pub(crate) async fn bind(listen: &crate::cli::Listen) -> io::Result<Vec<TcpListener>> {
    use crate::cli::Listen;
    match listen {
        Listen::AllInterfaces { port } => {
            let v6: SocketAddr = (std::net::Ipv6Addr::UNSPECIFIED, *port).into();
            match bind_one(v6, Some(false)) {
                Ok(listener) => Ok(vec![listener]),
                Err(error) if ipv6_disabled(&error) => {
                    let v4: SocketAddr = (std::net::Ipv4Addr::UNSPECIFIED, *port).into();
                    Ok(vec![bind_one(v4, None)?])
                }
                Err(error) => Err(error),
            }
        }
        Listen::Host { host, port } => {
            let mut addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), *port))
                .await?
                .collect();
            let mut seen = std::collections::HashSet::new();
            addrs.retain(|addr| seen.insert(addr.ip()));
            let mut listeners: Vec<TcpListener> = Vec::new();
            for mut addr in addrs {
                if let Some(first) = listeners.first() {
                    addr.set_port(first.local_addr()?.port());
                }
                listeners.push(bind_one(addr, addr.is_ipv6().then_some(true))?);
            }
            if listeners.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{host} resolves to no address"),
                ));
            }
            Ok(listeners)
        }
    }
}

/// Whether binding `[::]` failed because IPv6 is disabled on this machine.
fn ipv6_disabled(error: &io::Error) -> bool {
    use nix::errno::Errno;
    error.raw_os_error().is_some_and(|code| {
        code == Errno::EAFNOSUPPORT as i32 || code == Errno::EADDRNOTAVAIL as i32
    })
}

fn bind_one(addr: SocketAddr, only_v6: Option<bool>) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    if let Some(only_v6) = only_v6 {
        socket.set_only_v6(only_v6)?;
    }
    socket.set_reuse_address(true)?;
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    // The kernel caps it (net.core.somaxconn, 4096 on Linux 5.4 and later).
    socket.listen(4096)?;
    TcpListener::from_std(socket.into())
}
