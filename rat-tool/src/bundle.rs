//! `rat-tool bundle generate` and `rat-tool bundle inspect`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rat_wire::mtls::{self, Check, LoadedSide};

/// What went wrong, for the last line (stderr) and the exit status.
pub(crate) type Failure = String;

/// Generates a bundle and tells what goes where.
pub(crate) fn generate(
    out: &mut impl Write,
    tenant: &str,
    clients: &[String],
    output: &Path,
) -> Result<(), Failure> {
    let clients: Vec<&str> = clients.iter().map(String::as_str).collect();
    let report = mtls::generate(tenant, &clients, output).map_err(|e| e.to_string())?;
    let mut lines = vec![(
        report.server_dir.display().to_string(),
        format!("ratd, serving tenant {}", report.tenant),
    )];
    for (client, dir) in &report.clients {
        lines.push((
            dir.display().to_string(),
            format!("client {client}, working in session {client}"),
        ));
    }
    let width = lines.iter().map(|(dir, _)| dir.len()).max().unwrap_or(0);
    let mut text = format!(
        "Bundle of tenant {} written to {}:\n",
        report.tenant,
        output.display()
    );
    for (dir, what) in lines {
        text += &format!("  {dir:width$}  {what}\n");
    }
    text += &format!("CA fingerprint {}\n", report.ca_fingerprint);
    text += &format!(
        "Valid until {}\n",
        mtls::describe_validity(report.not_after, SystemTime::now())
    );
    // Mixing the files of two bundles, or of two sides, is the likeliest mistake.
    text +=
        "Copy each directory as a whole to its side only: the key of a client grants a shell.\n";
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())
}

/// Checks each directory, then whether they belong to one bundle. Fails if a directory fails
/// a check, or if they belong to several bundles.
pub(crate) fn inspect(out: &mut impl Write, dirs: &[PathBuf]) -> Result<(), Failure> {
    let mut text = String::new();
    let mut failed = 0;
    // the directories of each bundle, by CA fingerprint, in the order met
    let mut bundles: Vec<(String, Vec<String>)> = Vec::new();
    for (i, dir) in dirs.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        text += &format!("{}\n", dir.display());
        match inspect_side(&mut text, dir) {
            None => failed += 1,
            Some(side) => {
                let fingerprint = side.ca_fingerprint();
                let shown = dir.display().to_string();
                match bundles.iter_mut().find(|(f, _)| *f == fingerprint) {
                    Some((_, dirs)) => dirs.push(shown),
                    None => bundles.push((fingerprint, vec![shown])),
                }
            }
        }
    }
    if bundles.len() > 1 {
        text += &format!(
            "\nThese directories belong to {} different bundles:\n",
            bundles.len()
        );
        for (fingerprint, dirs) in &bundles {
            text += &format!("  CA {fingerprint}: {}\n", dirs.join(", "));
        }
    } else if dirs.len() - failed > 1 {
        text += &format!(
            "\nThese {} directories belong to the same bundle.\n",
            dirs.len() - failed
        );
    }
    out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    if failed > 0 {
        return Err(format!(
            "{failed} of {} directories failed their checks",
            dirs.len()
        ));
    }
    if bundles.len() > 1 {
        return Err(format!(
            "the directories belong to {} different bundles",
            bundles.len()
        ));
    }
    Ok(())
}

/// Loads `dir` as ratd and rat do, writing one line per check until one fails, then what the
/// directory is for. Returns the side, or `None` if a check failed.
pub(crate) fn inspect_side(text: &mut String, dir: &Path) -> Option<LoadedSide> {
    let loaded = mtls::load(dir);
    let passed = match &loaded {
        Ok(_) => Check::ALL.len(),
        Err(e) => Check::ALL.iter().position(|c| *c == e.check()).unwrap_or(0),
    };
    for check in &Check::ALL[..passed] {
        *text += &format!("  ok    {}\n", check.title());
    }
    let side = match loaded {
        Ok(side) => side,
        Err(e) => {
            *text += &format!("  FAIL  {}: {e}\n", e.check().title());
            return None;
        }
    };
    match &side {
        LoadedSide::Server(s) => *text += &format!("  ratd, serving tenant {}\n", s.tenant()),
        LoadedSide::Client(c) => {
            *text += &format!(
                "  client {name} of tenant {}, working in session {name}\n",
                c.tenant(),
                name = c.client_name()
            )
        }
    }
    let now = SystemTime::now();
    *text += &format!("  CA fingerprint {}\n", side.ca_fingerprint());
    *text += &format!(
        "  valid until {}\n",
        mtls::describe_validity(side.not_after(), now)
    );
    if let Some(warning) = mtls::expiry_warning(side.not_after(), now) {
        *text += &format!("  WARNING: {warning}\n");
    }
    Some(side)
}
