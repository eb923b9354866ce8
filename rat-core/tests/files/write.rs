//! write_file through its public API, against real files, directories, links, FIFOs and mounts
//! (`docs/design/files.md`). Results are snapshot-tested: agents read them.

use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::*;
use rat_core::result::Outcome;

#[tokio::test]
async fn created_then_replaced_telling_the_former_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    let shown_path = path.display().to_string();
    let mut t = Transcript::new(dir.path());
    t.add(
        "write notes.txt (new)",
        &write(&shown_path, "one\ntwo\n").await,
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "one\ntwo\n");
    assert_eq!(mode(&path), 0o644 & !umask(), "0644 minus the umask");
    t.add(
        "write notes.txt again",
        &write(&shown_path, &"x".repeat(2000)).await,
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "x".repeat(2000));
    t.add("write notes.txt empty", &write(&shown_path, "").await);
    assert_eq!(fs::read(&path).unwrap(), b"");
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn missing_directories_created_as_mkdir_p_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let deep = dir.path().join("a/b/c/deep.txt");
    t.add(
        "write a/b/c/deep.txt",
        &write(&deep.display().to_string(), "deep\n").await,
    );
    assert_eq!(fs::read_to_string(&deep).unwrap(), "deep\n");
    for created in ["a", "a/b", "a/b/c"] {
        assert_eq!(
            mode(&dir.path().join(created)),
            0o755 & !umask(),
            "{created}"
        );
    }
    // only the missing ones are named
    let beside = dir.path().join("a/b/d/beside.txt");
    t.add(
        "write a/b/d/beside.txt",
        &write(&beside.display().to_string(), "x").await,
    );
    // a parent that is a file
    let file = file(&dir.path().join("plain"), "text\n");
    t.add(
        "write plain/x/y.txt",
        &write(&format!("{file}/x/y.txt"), "x").await,
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "text\n");
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn paths_absolute_or_from_home() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    t.add("write notes.txt", &write("notes.txt", "x").await);
    t.add("write ./notes.txt", &write("./notes.txt", "x").await);
    t.add(
        "write ~alice/notes.txt",
        &write("~alice/notes.txt", "x").await,
    );
    assert!(!std::path::Path::new("notes.txt").exists());
    // ~/ is the home directory of the user ratd runs as
    // A name of fixed length: the header (and so the byte count told) holds it.
    let name = format!(".rat-files-test-{:07}", std::process::id());
    let home = std::env::home_dir().unwrap().join(&name);
    let _cleanup = Cleanup(home.clone());
    t.add(
        "write ~/NAME/x.txt",
        &write(&format!("~/{name}/x.txt"), "from home\n").await,
    );
    assert_eq!(
        fs::read_to_string(home.join("x.txt")).unwrap(),
        "from home\n"
    );
    age(&home.join("x.txt"));
    t.add(
        "read ~/NAME//./x.txt",
        &read(&format!("~/{name}//./x.txt")).await,
    );
    insta::assert_snapshot!(t.finish().replace(&name, "NAME"));
}

struct Cleanup(std::path::PathBuf);
impl Drop for Cleanup {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn only_regular_files_are_written_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let link_to_fifo = dir.path().join("link-to-fifo");
    symlink(&fifo, &link_to_fifo).unwrap();
    let socket = dir.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let started = Instant::now();
    t.add("write fifo", &write(&fifo.display().to_string(), "x").await);
    t.add(
        "write link-to-fifo",
        &write(&link_to_fifo.display().to_string(), "x").await,
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "never blocks on a FIFO"
    );
    t.add(
        "write socket",
        &write(&socket.display().to_string(), "x").await,
    );
    t.add("write /dev/null", &write("/dev/null", "x").await);
    t.add(
        "write the directory",
        &write(&dir.path().display().to_string(), "x").await,
    );
    // A final / names a directory: refused, nothing created (as `echo x > newdir/` fails).
    t.add(
        "write newdir/",
        &write(&format!("{}/newdir/", dir.path().display()), "x").await,
    );
    assert!(!dir.path().join("newdir").exists());
    t.add(
        "write the directory/.",
        &write(&format!("{}/.", dir.path().display()), "x").await,
    );
    assert!(
        fs::symlink_metadata(&link_to_fifo)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn a_symbolic_link_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    let target = dir.path().join("target.conf");
    file(&target, "old\n");
    let link = dir.path().join("link.conf");
    symlink(&target, &link).unwrap();
    t.add(
        "write link.conf",
        &write(&link.display().to_string(), "new content\n").await,
    );
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "still a link"
    );
    assert_eq!(fs::read_to_string(&target).unwrap(), "new content\n");
    // a dangling link creates its target, as a human writing to it would
    let dangling = dir.path().join("dangling");
    symlink(dir.path().join("created-by-link"), &dangling).unwrap();
    t.add(
        "write dangling",
        &write(&dangling.display().to_string(), "made\n").await,
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("created-by-link")).unwrap(),
        "made\n"
    );
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn written_in_place_keeping_mode_owner_hard_links_and_xattrs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kept.sh");
    file(&path, "#!/bin/sh\necho old\n");
    let other = dir.path().join("other-name.sh");
    fs::hard_link(&path, &other).unwrap();
    set_mode(&path, 0o750);
    std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    xattr::set(&path, "user.rat", b"kept").expect("user.* xattrs on /tmp");
    let before = fs::metadata(&path).unwrap();

    let result = write(&path.display().to_string(), "#!/bin/sh\necho new\n").await;
    let mut t = Transcript::new(dir.path());
    t.add("write kept.sh", &result);
    insta::assert_snapshot!(t.finish());

    let after = fs::metadata(&path).unwrap();
    assert_eq!(after.ino(), before.ino(), "the same file, written in place");
    assert_eq!(after.nlink(), 2, "the hard link kept");
    assert_eq!(fs::read_to_string(&other).unwrap(), "#!/bin/sh\necho new\n");
    assert_eq!(mode(&path), 0o750);
    assert_eq!((after.uid(), after.gid()), (65534, 65534));
    assert_eq!(
        xattr::get(&path, "user.rat").unwrap(),
        Some(b"kept".to_vec())
    );
}

#[tokio::test]
async fn a_read_only_file_system_is_told_as_the_system_tells_it() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("ro"), "ro,size=1m");
    let mut t = Transcript::new(dir.path());
    let result = write(&mount.path.join("x.txt").display().to_string(), "x").await;
    assert!(matches!(result.outcome, Outcome::Refused { .. }));
    t.add("write ro/x.txt", &result);
    t.add(
        "write ro/new/x.txt",
        &write(&mount.path.join("new/x.txt").display().to_string(), "x").await,
    );
    insta::assert_snapshot!(t.finish());
}

#[tokio::test]
async fn no_space_left_says_the_file_may_be_partial() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("small"), "size=64k");
    let path = mount.path.join("big.txt");
    file(&path, "previous\n");
    let mut t = Transcript::new(dir.path());
    let result = write(&path.display().to_string(), &"y".repeat(200 * 1024)).await;
    assert!(
        matches!(result.outcome, Outcome::Failed { .. }),
        "a warning"
    );
    t.add("write small/big.txt (200 KiB on a 64 KiB tmpfs)", &result);
    insta::assert_snapshot!(t.finish());
    let partial = fs::read(&path).unwrap();
    assert!(!partial.is_empty() && partial.len() < 200 * 1024);
}

/// Set in the child process run as nobody: the directory of the test.
const CHILD: &str = "RAT_FILES_TEST_AS_NOBODY";

/// Tests run as root, which no permission stops: the calls run in a child process as nobody
/// (this very test, re-run with `CHILD` set), which prints their results for the parent to check.
#[tokio::test]
async fn a_denied_permission_names_the_user() {
    if let Ok(dir) = std::env::var(CHILD) {
        let dir = std::path::Path::new(&dir);
        let mut t = Transcript::new(dir);
        for (call, result) in [
            (
                "write ro/new.txt",
                write(&dir.join("ro/new.txt").display().to_string(), "x").await,
            ),
            (
                "write ro/sub/new.txt",
                write(&dir.join("ro/sub/new.txt").display().to_string(), "x").await,
            ),
            (
                "write ro/root-owned.txt",
                write(&dir.join("ro/root-owned.txt").display().to_string(), "x").await,
            ),
            (
                "read secret.txt",
                read(&dir.join("secret.txt").display().to_string()).await,
            ),
        ] {
            t.add(call, &result);
        }
        println!("<<<\n{}>>>", t.finish());
        return;
    }
    let dir = open_dir();
    let ro = dir.path().join("ro");
    fs::create_dir(&ro).unwrap();
    file(&ro.join("root-owned.txt"), "root's\n");
    set_mode(&ro, 0o555);
    file(&dir.path().join("secret.txt"), "secret\n");
    set_mode(&dir.path().join("secret.txt"), 0o600);
    // The test binary run as nobody, from a copy nobody can reach: a checkout under a
    // private home (0700) is not.
    let bin = open_dir();
    let exe = bin.path().join("files_write");
    fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    set_mode(&exe, 0o755);
    // Another test's child, forked while the copy was open for writing, holds it until it
    // executes its program: the copy is then busy (ETXTBSY) for that moment.
    let mut tries = 0;
    let output = loop {
        match Command::new(&exe)
            .args([
                // Its name in the binary of the file tests: the module, then the test.
                "write::a_denied_permission_names_the_user",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, dir.path())
            .uid(65534)
            .gid(65534)
            .output()
        {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && tries < 100 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            result => break result.unwrap(),
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let transcript = stdout
        .split_once("<<<\n")
        .and_then(|(_, rest)| rest.split_once(">>>"))
        .map(|(transcript, _)| transcript)
        .expect("the child prints its transcript");
    insta::assert_snapshot!(transcript);
    assert_eq!(
        fs::read_to_string(ro.join("root-owned.txt")).unwrap(),
        "root's\n"
    );
}

#[tokio::test]
async fn a_refused_write_leaves_no_directory_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Transcript::new(dir.path());
    // The path resolves to a directory once its missing directories exist.
    t.add(
        "write zz/yy/..",
        &write(&format!("{}/zz/yy/..", dir.path().display()), "x").await,
    );
    assert!(!dir.path().join("zz").exists());
    // A file name over the 255 bytes a name holds, in missing directories.
    let long = "n".repeat(300);
    t.add(
        "write a/b/NAME",
        &write(&format!("{}/a/b/{long}", dir.path().display()), "x").await,
    );
    assert!(!dir.path().join("a").exists());
    // A directory name too long, under a missing one made first.
    t.add(
        "write c/NAME/f",
        &write(&format!("{}/c/{long}/f", dir.path().display()), "x").await,
    );
    assert!(!dir.path().join("c").exists());
    insta::assert_snapshot!(t.finish().replace(&long, "NAME"));
}

#[tokio::test]
async fn paths_told_are_real_paths_without_dot_dot() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    fs::create_dir_all(root.join("prj")).unwrap();
    fs::create_dir_all(root.join("elsewhere/deep")).unwrap();
    // A link to a directory two levels down: its `..` is elsewhere, not root.
    symlink(root.join("elsewhere/deep"), root.join("link")).unwrap();
    let mut t = Transcript::new(&root);
    t.add(
        "write prj/../prj/nwe/sub/a.txt",
        &write(&format!("{}/prj/../prj/nwe/sub/a.txt", root.display()), "a").await,
    );
    assert_eq!(
        fs::read_to_string(root.join("prj/nwe/sub/a.txt")).unwrap(),
        "a"
    );
    t.add(
        "write link/../made/b.txt",
        &write(&format!("{}/link/../made/b.txt", root.display()), "b").await,
    );
    // The kernel resolved `..` after the link: the file is under elsewhere/.
    assert_eq!(
        fs::read_to_string(root.join("elsewhere/made/b.txt")).unwrap(),
        "b"
    );
    assert!(!root.join("made").exists());
    t.add(
        "write link/../made/b.txt again",
        &write(&format!("{}/link/../made/b.txt", root.display()), "bb").await,
    );
    insta::assert_snapshot!(t.finish(), @r"
    > write prj/../prj/nwe/sub/a.txt
    ok path=[DIR]/prj/../prj/nwe/sub/a.txt bytes=1 created=true former_size=0 directories_created=2
    Created [DIR]/prj/nwe/sub/a.txt (1 B). Missing directories created: [DIR]/prj/nwe, [DIR]/prj/nwe/sub. Check the path if you did not mean them.

    > write link/../made/b.txt
    ok path=[DIR]/link/../made/b.txt bytes=1 created=true former_size=0 directories_created=1
    Created [DIR]/elsewhere/made/b.txt (1 B). Missing directories created: [DIR]/elsewhere/made. Check the path if you did not mean them.

    > write link/../made/b.txt again
    ok path=[DIR]/link/../made/b.txt bytes=2 created=false former_size=1 directories_created=0
    Replaced [DIR]/elsewhere/made/b.txt (2 B, 1 B before).
    ");
}

/// Through a link, the answer names the file really written, then the link: a dangling link
/// creating a file elsewhere, a relative link, a chain of links (relative, then absolute), a
/// chain ending dangling, and a link to a large file replaced. Written without a link, or to a
/// link's directory, the name is as before.
#[tokio::test]
async fn the_file_written_through_a_link_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("files")).unwrap();
    fs::create_dir_all(root.join("elsewhere")).unwrap();
    let big = file(&root.join("elsewhere/big.txt"), "x".repeat(2_000_000));
    symlink(root.join("elsewhere/new.txt"), root.join("files/dangling")).unwrap();
    symlink("../elsewhere/big.txt", root.join("files/relative")).unwrap();
    symlink("relative", root.join("files/chained")).unwrap();
    symlink(root.join("files/chained"), root.join("files/chained-twice")).unwrap();
    symlink("dangling", root.join("files/chained-dangling")).unwrap();
    symlink("../elsewhere/missing/x.txt", root.join("files/deep")).unwrap();
    let mut t = Transcript::new(root);
    let at = |name: &str| root.join(name).display().to_string();
    t.add(
        "write files/dangling",
        &write(&at("files/dangling"), "made by link\n").await,
    );
    assert_eq!(
        fs::read_to_string(root.join("elsewhere/new.txt")).unwrap(),
        "made by link\n"
    );
    t.add(
        "write files/relative",
        &write(&at("files/relative"), "relative\n").await,
    );
    assert_eq!(fs::read_to_string(&big).unwrap(), "relative\n");
    t.add(
        "write files/chained-twice",
        &write(&at("files/chained-twice"), "chained\n").await,
    );
    assert_eq!(fs::read_to_string(&big).unwrap(), "chained\n");
    fs::remove_file(root.join("elsewhere/new.txt")).unwrap();
    t.add(
        "write files/chained-dangling",
        &write(&at("files/chained-dangling"), "made again\n").await,
    );
    assert_eq!(
        fs::read_to_string(root.join("elsewhere/new.txt")).unwrap(),
        "made again\n"
    );
    t.add(
        "write files/deep",
        &write(&at("files/deep"), "nowhere\n").await,
    );
    assert!(!root.join("elsewhere/missing").exists());
    t.add(
        "write elsewhere/big.txt",
        &write(&at("elsewhere/big.txt"), "plain\n").await,
    );
    for link in [
        "dangling",
        "relative",
        "chained",
        "chained-twice",
        "chained-dangling",
        "deep",
    ] {
        let meta = fs::symlink_metadata(root.join("files").join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} still a link");
    }
    insta::assert_snapshot!(t.finish(), @r"
    > write files/dangling
    ok path=[DIR]/files/dangling bytes=13 created=true former_size=0 directories_created=0
    Created [DIR]/elsewhere/new.txt (13 B, through the link [DIR]/files/dangling).

    > write files/relative
    ok path=[DIR]/files/relative bytes=9 created=false former_size=2000000 directories_created=0
    Replaced [DIR]/elsewhere/big.txt (9 B, 1.9 MiB before, through the link [DIR]/files/relative).

    > write files/chained-twice
    ok path=[DIR]/files/chained-twice bytes=8 created=false former_size=9 directories_created=0
    Replaced [DIR]/elsewhere/big.txt (8 B, 9 B before, through the link [DIR]/files/chained-twice).

    > write files/chained-dangling
    ok path=[DIR]/files/chained-dangling bytes=11 created=true former_size=0 directories_created=0
    Created [DIR]/elsewhere/new.txt (11 B, through the link [DIR]/files/chained-dangling).

    > write files/deep
    refused (ENOENT: No such file or directory (os error 2)) path=[DIR]/files/deep bytes=8
    Writing [DIR]/files/deep failed: no such file or directory. It is a symbolic link to [DIR]/elsewhere/missing/x.txt, whose directory does not exist.

    > write elsewhere/big.txt
    ok path=[DIR]/elsewhere/big.txt bytes=6 created=false former_size=8 directories_created=0
    Replaced [DIR]/elsewhere/big.txt (6 B, 8 B before).
    ");
}
