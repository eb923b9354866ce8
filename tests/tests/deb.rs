//! The Debian package: built with cargo-deb from the test's own build (`scripts/deb --dev`),
//! unpacked into a scratch root (`dpkg -x`), each binary run from there, and the unit template
//! it installs verified by systemd itself (`systemd-analyze verify`), its paths true.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tests::{binaries, run, run_to_exit, workspace_root};

/// Builds the package from the test's build into `out`, and returns its path.
fn build_deb(out: &Path) -> PathBuf {
    let target_dir = binaries()
        .ratd
        .parent()
        .and_then(Path::parent)
        .expect("target/PROFILE/ratd")
        .to_path_buf();
    let has_cargo_deb = Command::new("cargo")
        .args(["deb", "--version"])
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(
        has_cargo_deb,
        "cargo-deb is missing: run scripts/test, which installs it (or cargo install --locked cargo-deb)"
    );
    run(
        "scripts/deb --dev",
        Command::new("bash")
            .arg(workspace_root().join("scripts/deb"))
            .args(["--dev", "--output"])
            .arg(out)
            .env("CARGO_TARGET_DIR", &target_dir),
        Duration::from_secs(600),
    );
    let debs: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("the output directory")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "deb"))
        .collect();
    assert_eq!(debs.len(), 1, "one .deb in {}: {debs:?}", out.display());
    debs.into_iter().next().expect("one")
}

#[test]
fn the_package_installs_the_binaries_the_unit_and_the_docs() {
    let scratch = tempfile::tempdir().expect("a directory");
    let deb = build_deb(&scratch.path().join("out"));
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        deb.file_name().and_then(|name| name.to_str()),
        Some(format!("rat_{version}-1_amd64.deb").as_str())
    );

    // The files it holds, as dpkg lists them.
    let listing = run(
        "dpkg-deb --contents",
        Command::new("dpkg-deb").arg("--contents").arg(&deb),
        Duration::from_secs(60),
    );
    let mut files: Vec<String> = listing
        .stdout
        .lines()
        .filter(|line| !line.starts_with('d'))
        .map(|line| {
            let path = line.split_whitespace().last().expect("a path");
            path.trim_start_matches('.').to_owned()
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "/usr/bin/rat",
            "/usr/bin/rat-tool",
            "/usr/bin/ratd",
            "/usr/lib/systemd/system/ratd@.service",
            "/usr/share/doc/rat/README.md",
            "/usr/share/doc/rat/copyright",
            "/usr/share/doc/rat/examples/sysusers-tenant.conf",
            "/usr/share/doc/rat/logs.md",
            "/usr/share/doc/rat/systemd/README.md",
        ],
        "{}",
        listing.stdout
    );
    let info = run(
        "dpkg-deb --field",
        Command::new("dpkg-deb")
            .arg("--field")
            .arg(&deb)
            .args(["Package", "Version", "Depends"]),
        Duration::from_secs(60),
    );
    assert!(
        info.stdout
            .starts_with(&format!("Package: rat\nVersion: {version}-1\nDepends: "))
    );
    assert!(info.stdout.contains("tmux (>= 3.2)"), "{}", info.stdout);

    // Unpacked into a scratch root: each binary runs from there.
    let root = scratch.path().join("root");
    run(
        "dpkg -x",
        Command::new("dpkg").arg("-x").arg(&deb).arg(&root),
        Duration::from_secs(60),
    );
    for binary in ["ratd", "rat", "rat-tool"] {
        let output = run(
            &format!("{binary} --version"),
            Command::new(root.join("usr/bin").join(binary)).arg("--version"),
            Duration::from_secs(30),
        );
        assert_eq!(output.stdout, format!("{binary} {version}\n"));
    }

    // The unit names true paths: its ratd and its documentation are in the package.
    let unit_path = root.join("usr/lib/systemd/system/ratd@.service");
    let unit = std::fs::read_to_string(&unit_path).expect("the unit");
    let value = |key: &str| {
        unit.lines()
            .find_map(|line| line.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in the unit"))
    };
    let exec = value("ExecStart=")
        .split_whitespace()
        .next()
        .expect("a path");
    assert_eq!(exec, "/usr/bin/ratd");
    let doc = value("Documentation=")
        .strip_prefix("file://")
        .expect("a file:// URL");
    assert!(
        root.join(doc.trim_start_matches('/')).is_file(),
        "{doc} is not in the package"
    );

    // systemd's own verdict on the unit, an instance of it, in the scratch root (where its
    // ExecStart is looked for): the targets it names come from this machine's systemd.
    let units = root.join("usr/lib/systemd/system");
    for target in std::fs::read_dir("/usr/lib/systemd/system").expect("systemd's units") {
        let target = target.expect("an entry").path();
        if target.extension().is_some_and(|ext| ext == "target") {
            std::fs::copy(&target, units.join(target.file_name().expect("a name")))
                .expect("a target copied");
        }
    }
    let verify = |what: &str| {
        run_to_exit(
            what,
            Command::new("systemd-analyze")
                .arg("verify")
                .arg(format!("--root={}", root.display()))
                .arg("ratd@prod.service")
                .env("SYSTEMD_LOG_COLOR", "0"),
            Duration::from_secs(60),
        )
    };
    let (status, output) = verify("systemd-analyze verify");
    assert!(status.success(), "{status}: {}", output.stderr);
    assert_eq!(output.stderr, "", "systemd-analyze verify warned");

    // The same verification fails on a unit whose ExecStart is not in the package.
    std::fs::write(
        &unit_path,
        unit.replace("/usr/bin/ratd", "/usr/local/bin/ratd"),
    )
    .expect("the unit changed");
    let (status, output) = verify("systemd-analyze verify, a wrong path");
    assert!(!status.success());
    assert!(
        output
            .stderr
            .contains("Command /usr/local/bin/ratd is not executable"),
        "{}",
        output.stderr
    );
}
