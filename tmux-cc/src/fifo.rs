//! FIFOs of a private directory, and a word quoted for `sh`: what jobs and pipe streams pass
//! their bytes and gates through.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// `text` as one word of `sh`, single-quoted.
pub(crate) fn sh_quote(text: &[u8]) -> Vec<u8> {
    let mut out = vec![b'\''];
    for &b in text {
        if b == b'\'' {
            out.extend_from_slice(b"'\\''");
        } else {
            out.push(b);
        }
    }
    out.push(b'\'');
    out
}

pub(crate) fn make_fifo(path: &Path) -> Result<()> {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).map_err(|e| {
        Error::io(
            format!("creating the FIFO {}", path.display()),
            std::io::Error::from_raw_os_error(e as i32),
        )
    })
}

/// Opens the FIFO `path` for writing once its reader has it open (a non-blocking open fails
/// with ENXIO until then), within 10 s, and writes `bytes`.
pub(crate) async fn write_fifo(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
        {
            Ok(mut file) => return file.write_all(bytes),
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sh_quote;

    #[test]
    fn sh_quote_keeps_quotes() {
        assert_eq!(sh_quote(b"/a b/it's"), b"'/a b/it'\\''s'".to_vec());
    }
}
