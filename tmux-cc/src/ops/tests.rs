use std::path::PathBuf;

use super::buffers::check_buffer_name;
use super::options::check_user_option_name;
use super::windows::{parse_window_line, split_fields};
use crate::WindowInfo;
use crate::parse::{PaneId, SessionId, WindowId};

#[test]
fn fields_split_on_unescaped_spaces_and_keep_empty_ones() {
    let (fields, rest) = split_fields(br"a\ b  c\\d\; /home/x y", 3).unwrap();
    assert_eq!(
        fields,
        vec![b"a b".to_vec(), b"".to_vec(), br"c\d;".to_vec()]
    );
    assert_eq!(rest, b"/home/x y");
    assert_eq!(split_fields(b"a b", 3), None);
    assert_eq!(split_fields(b"a\\", 1), None);
}

#[test]
fn a_window_line_parses() {
    let line = br"$1 @2 3 %4 1796040214 1 5 6 0 1000 1 1 127 4242 200 24 my\ win vim 7\ 8 /tmp/a b";
    let info = parse_window_line(line, &["@x"]).unwrap();
    assert_eq!(
        info,
        WindowInfo {
            session: SessionId(1),
            window: WindowId(2),
            index: 3,
            name: "my win".into(),
            pane: PaneId(4),
            activity: 1796040214,
            alternate_on: true,
            cursor_x: 5,
            cursor_y: 6,
            cursor_visible: false,
            history_size: 1000,
            in_mode: true,
            dead: true,
            dead_status: Some(127),
            pane_pid: 4242,
            width: 200,
            height: 24,
            current_command: "vim".into(),
            current_path: PathBuf::from("/tmp/a b"),
            user_options: vec![("@x".into(), "7 8".into())],
        }
    );
}

#[test]
fn option_and_buffer_names_are_checked() {
    assert!(check_user_option_name("@rat_prompt-1").is_ok());
    for bad in ["", "@", "x", "@a}b", "@a b", "@#{x}"] {
        assert!(check_user_option_name(bad).is_err(), "{bad}");
    }
    assert!(check_buffer_name("tmux-cc-paste-1.2").is_ok());
    for bad in ["", "a,b", "a}b", "a b"] {
        assert!(check_buffer_name(bad).is_err(), "{bad}");
    }
}
