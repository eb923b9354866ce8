//! Tests of the prompt hook: its start-up file and records, in a real bash.

use super::*;

#[test]
fn bash_versions() {
    let v =
        parse_bash_version("GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\nCopyright");
    assert_eq!(v, Some(((5, 2), "5.2.15(1)-release".to_string())));
    let v = parse_bash_version("GNU bash, version 3.2.57(1)-release (arm64-apple-darwin23)");
    assert_eq!(v.unwrap().0, (3, 2));
    assert_eq!(parse_bash_version("zsh 5.9"), None);
}

/// Runs `script` in a real bash after rat's start-up file, in a hook directory of its
/// own, with `h` calling the hook as PROMPT_COMMAND would after a command ran from an
/// input that could set a variable, `hp WORD...` after one that could not (ratd's words
/// of it), `he` after a command that came from elsewhere (no input answered since), `h0`
/// after an empty line (no command ran), and `env` printing what the hook handed over
/// (then removing it).
fn run_hook(secrets: bool, script: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["in", "out", "env"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("in/0"), "0 0 0\n").unwrap();
    std::fs::write(dir.path().join("rc"), rc_with(dir.path(), secrets)).unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c"])
        .arg(format!(
            ". ./rc >/dev/null 2>&1; __rat_cn='$__c'; __c=0 __i=0 __a=0\n\
             p() {{ __c=$((__c + 1)); __rat_s=(0 0); __rat_hook >/dev/null; }}\n\
             h() {{ __i=$((__i + 1)) __a=$((__i)); echo \"$__i $__i $__a\" >in/0; p; }}\n\
             hp() {{ __i=$((__i + 1)); echo \"$__i $__i $__a $*\" >in/0; p; }}\n\
             he() {{ p; }}\n\
             h0() {{ __rat_s=(0 0); __rat_hook >/dev/null; }}\n\
             env() {{ builtin printf '[%s]' \"$(tr '\\0' '|' <env/0 2>/dev/null)\"; \
             rm -f env/0; }}\n{script}"
        ))
        .current_dir(dir.path())
        .env("HOME", home.path())
        .env("TMUX_PANE", "%0")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The hook hands over the secret-named variables, exported or not, values of any bytes,
/// only when they changed (the file removed is not written again until then), and none
/// when ratd shows secrets. A real bash, its hook called as PROMPT_COMMAND would.
#[test]
fn hands_secret_variables_when_they_change() {
    let script = "PATH=$PATH EDITOR=vi; h; env; \
                  export DB_PASSWORD=hunter2x9; h; env; h; env; \
                  MY_API_KEY=$'a \"b\" \\'c\\nd'; h; env; \
                  DB_PASSWORD=changed99; h; env; h; env; \
                  unset DB_PASSWORD MY_API_KEY; h; env";
    assert_eq!(
        run_hook(true, script),
        "[][DB_PASSWORD=hunter2x9|.|][]\
         [DB_PASSWORD=hunter2x9|MY_API_KEY=a \"b\" 'c\nd|.|]\
         [DB_PASSWORD=changed99|MY_API_KEY=a \"b\" 'c\nd|.|][][.|]"
    );
    assert_eq!(run_hook(false, script), "[][][][][][][]");
}

/// The listing runs only where a variable could have changed: at the first prompt, after
/// an input that could set one, after a command that came from elsewhere, and after a
/// plain input one of whose words names a function or alias; not after a plain input
/// (`true`), nor after an empty line. A variable changed behind a plain input (here set
/// by the script itself, as no command line could) is handed over at the next listing.
#[test]
fn lists_variables_only_where_a_command_could_have_set_one() {
    let script = "h; env; \
                  DB_PASSWORD=one1one1; hp true; env; h0; env; hp ls -la /tmp; env; \
                  h; env; \
                  DB_PASSWORD=two2two2; he; env; \
                  f() { :; }; DB_PASSWORD=three3; hp ls f; env; \
                  alias g=true; DB_PASSWORD=four4four; hp g; env; \
                  DB_PASSWORD=five5five; hp true; env; hp true; env; h; env";
    assert_eq!(
        run_hook(true, script),
        "[][][][][DB_PASSWORD=one1one1|.|]\
         [DB_PASSWORD=two2two2|.|]\
         [DB_PASSWORD=three3|.|]\
         [DB_PASSWORD=four4four|.|]\
         [][][DB_PASSWORD=five5five|.|]"
    );
}

#[test]
fn start_up_file() {
    insta::assert_snapshot!(rc(Path::new("/run/user/1000/rat-hook-1-0-00000000")));
    assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
}

#[test]
fn records() {
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 1,0 13 1 E"),
        Some(Record {
            pane: 3,
            covers: 12,
            time: 1_700_000_005,
            exit_time: 1_700_000_004,
            exit: Exit::Statuses(vec![1, 0]),
            seen: 13,
            ran: true,
            mark: None,
            ps1_len: None,
            shell: None,
            job: None,
        })
    );
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 148 13 1 41 7 4242 2:4300:1:5012.25 E")
            .map(|r| (r.shell, r.job)),
        Some((
            Some(4242),
            Some(Job {
                number: 2,
                pid: 4300,
                more: true,
                prompt_before: Some(501_225),
            })
        ))
    );
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 0 13 1 41 7 4242 - E")
            .map(|r| (r.shell, r.job)),
        Some((Some(4242), None))
    );
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 1,0 13 1 41 7 E").map(|r| (r.mark, r.ps1_len)),
        Some((Some(41), Some(7)))
    );
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 1,0 13 1 41 E").map(|r| r.mark),
        Some(Some(41))
    );
    assert_eq!(
        Record::parse("R 3 12 1700000005 1700000004 1,0 13 1 - E").map(|r| r.mark),
        Some(None)
    );
    for bad in [
        "R 3 12 1700000005 1700000004 1,0 13 1 41",
        "R 3 12 1700000005 1700000004 1,0 13 1 x E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 E E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 - 9 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3:2 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3:1 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3:1:x E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3:1:12.5 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 8 2:3:1:-:0 E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 7 x - E",
        "R 3 12 1700000005 1700000004 1,0 13 1 41 x E",
    ] {
        assert_eq!(Record::parse(bad), None, "{bad}");
    }
    assert_eq!(
        Record::parse("R 0 0 5 5 - 0 0 E").map(|r| r.exit),
        Some(Exit::Started)
    );
    assert_eq!(
        Record::parse("R 0 0 5 5 ? 0 1 E").map(|r| r.exit),
        Some(Exit::Unknown)
    );
    for bad in [
        "",
        "R",
        "R 1 2 3 4",
        "R a 2 3 4 0",
        "R 1 2 3 4 1,,0",
        "R 1 2 3 4 0 x",
        "X 1 2 3 4 0",
    ] {
        assert_eq!(Record::parse(bad), None, "{bad:?}");
    }
}
