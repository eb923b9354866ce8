//! The Debian package: built with cargo-deb from the test's own build (`scripts/deb --dev`),
//! unpacked into a scratch root (`dpkg -x`), each binary run from there, stripped (its debug
//! info in the -dbgsym package beside it), and the unit template it installs verified by
//! systemd itself (`systemd-analyze verify`), its paths true. The client archive beside it:
//! rat and rat-tool alone, stripped, rat-tool's configuration naming the archive's rat.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tests::{binaries, run, run_to_exit, workspace_root};

/// Builds the package from the test's build into `out`, and returns its path (the -dbgsym
/// package and the client archive are written beside it).
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

/// The names of the ELF sections of `binary` holding debug info (`.debug_*`, but for
/// `.debug_gdb_scripts`: rustc's loaded section naming gdb's pretty-printers, which strip keeps),
/// as readelf lists them.
fn debug_sections(binary: &Path) -> Vec<String> {
    let output = run(
        "readelf -S",
        Command::new("readelf").args(["-S", "--wide"]).arg(binary),
        Duration::from_secs(30),
    );
    assert!(output.stdout.contains(" .text "), "{}", output.stdout);
    output
        .stdout
        .split_whitespace()
        .filter(|word| word.starts_with(".debug_") && *word != ".debug_gdb_scripts")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_package_and_the_client_archive() {
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
        let path = root.join("usr/bin").join(binary);
        let output = run(
            &format!("{binary} --version"),
            Command::new(&path).arg("--version"),
            Duration::from_secs(30),
        );
        assert_eq!(output.stdout, format!("{binary} {version}\n"));
        assert_eq!(
            debug_sections(&path),
            Vec::<String>::new(),
            "{binary} stripped"
        );
    }

    // Their debug info, in the -dbgsym package: one file per binary, by build id.
    let ddeb = deb.with_file_name(format!("rat-dbgsym_{version}-1_amd64.ddeb"));
    let dbgsym = scratch.path().join("dbgsym");
    run(
        "dpkg -x the dbgsym package",
        Command::new("dpkg").arg("-x").arg(&ddeb).arg(&dbgsym),
        Duration::from_secs(60),
    );
    let build_ids = dbgsym.join("usr/lib/debug/.build-id");
    let mut debug_files = Vec::new();
    for dir in std::fs::read_dir(&build_ids).expect("the build ids") {
        for file in std::fs::read_dir(dir.expect("a directory").path()).expect("a directory") {
            debug_files.push(file.expect("a file").path());
        }
    }
    assert_eq!(debug_files.len(), 3, "{debug_files:?}");
    for file in &debug_files {
        assert!(
            debug_sections(file).contains(&".debug_line".to_owned()),
            "{} holds line tables",
            file.display()
        );
    }

    the_client_archive_holds_rat_and_rat_tool_stripped(&deb, scratch.path());

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

/// The client archive written beside `deb`: rat and rat-tool alone, stripped, unpacked into
/// `scratch`. Called by the package's test, which built both (a build takes a minute).
fn the_client_archive_holds_rat_and_rat_tool_stripped(deb: &Path, scratch: &Path) {
    let version = env!("CARGO_PKG_VERSION");
    let name = format!("rat-client-{version}-x86_64-linux");
    let archive = deb.with_file_name(format!("{name}.tar.gz"));

    let listing = run(
        "tar -tzvf",
        Command::new("tar").arg("-tzvf").arg(&archive),
        Duration::from_secs(60),
    );
    let entries: Vec<(&str, &str)> = listing
        .stdout
        .lines()
        .map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            (words[0], *words.last().expect("a path"))
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("drwxr-xr-x", format!("{name}/").as_str()),
            ("-rwxr-xr-x", format!("{name}/rat").as_str()),
            ("-rwxr-xr-x", format!("{name}/rat-tool").as_str()),
        ],
        "{}",
        listing.stdout
    );

    // Unpacked as a laptop's user does: each binary runs, stripped, and rat-tool's
    // configuration starts the rat beside it.
    let home = scratch.join("home");
    std::fs::create_dir(&home).expect("a directory");
    run(
        "tar -xzf",
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(&home),
        Duration::from_secs(60),
    );
    let dir = home.join(&name);
    for binary in ["rat", "rat-tool"] {
        let path = dir.join(binary);
        let output = run(
            &format!("{binary} --version"),
            Command::new(&path).arg("--version"),
            Duration::from_secs(30),
        );
        assert_eq!(output.stdout, format!("{binary} {version}\n"));
        assert_eq!(
            debug_sections(&path),
            Vec::<String>::new(),
            "{binary} stripped"
        );
    }
    let bundle = scratch.join("bundle");
    rat_wire::mtls::generate("client-archive", &["alice"], &bundle).expect("a bundle");
    let output = run(
        "rat-tool config from the archive",
        Command::new(dir.join("rat-tool"))
            .args(["config", "--server", "build.example:7281", "--bundle"])
            .arg(bundle.join("clients/alice")),
        Duration::from_secs(30),
    );
    let config: serde_json::Value = serde_json::from_str(&output.stdout).expect("JSON");
    assert_eq!(
        config["mcpServers"]["rat-client-archive"]["command"],
        dir.join("rat").display().to_string()
    );
    assert!(!output.stderr.contains("warning"), "{}", output.stderr);
}
