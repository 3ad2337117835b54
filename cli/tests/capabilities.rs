//! What a server does not offer: listing prompts, resources or templates lists nothing (exit
//! 0, a note on stderr); `mcp listen` names the method and what the server declared.

use serde_json::{json, Value};

mod common;
use common::{mcp, stderr, stdout, target};

#[test]
fn missing_lists_are_empty_with_a_note() {
    let bare = target("--no-prompts --no-resources");
    for (args, note, empty) in [
        (&["prompts"][..], "prompts", json!({"prompts": []})),
        (&["resources"], "resources", json!({"resources": []})),
        (&["resources", "templates"], "resource templates", json!({"resourceTemplates": []})),
    ] {
        let mut with_json = args.to_vec();
        with_json.extend([bare.as_str(), "--json"]);
        let out = mcp(&with_json);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).trim_end(), format!("the server does not offer {note}"));
        assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("JSON"), empty);
    }
    let out = mcp(&["prompts", &bare]);
    assert!(out.status.success() && stdout(&out).trim_end() == "(no prompts)", "{}", stderr(&out));
    // The legacy handshake too (the capability is not declared there either).
    let out = mcp(&["prompts", &target("--protocol 2025-11-25 --no-prompts")]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn listen_names_what_the_server_lacks() {
    let out = mcp(&["listen", &target("--protocol 2025-11-25 --no-subscribe"), "--resource", "test://text"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("error: resources/subscribe: the server does not offer it"), "{err}");
    assert!(
        err.contains("it declared: tools(listChanged), prompts(listChanged), resources(listChanged)"),
        "{err}"
    );

    let out =
        mcp(&["listen", &target("--protocol 2025-11-25 --no-prompts --no-resources"), "--list", "prompts"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("nothing to listen to"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("it declared: tools(listChanged), logging, completions"),
        "{}",
        stderr(&out)
    );
}

/// server-filesystem declares tools only: its prompts, resources and templates are empty
/// lists with a note; listening for prompt changes has nothing to listen to.
#[test]
fn server_filesystem_offers_tools_only() {
    let dir = mcp_tests::support::TempDir::new("cli-fs-caps");
    let fs = format!("{} {}", mcp_tests::support::peer_command("server-filesystem"), dir.path_str());
    for (args, note, key) in [
        (&["prompts"][..], "prompts", "prompts"),
        (&["resources"], "resources", "resources"),
        (&["resources", "templates"], "resource templates", "resourceTemplates"),
    ] {
        let mut with_json = args.to_vec();
        with_json.extend([fs.as_str(), "--json"]);
        let out = mcp(&with_json);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out).trim_end(), format!("the server does not offer {note}"));
        assert_eq!(serde_json::from_slice::<Value>(&out.stdout).expect("JSON"), json!({key: []}));
    }
    let out = mcp(&["listen", &fs, "--list", "prompts"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nothing to listen to")
            && stderr(&out).ends_with("it declared: tools(listChanged)\n"),
        "{}",
        stderr(&out)
    );
}
