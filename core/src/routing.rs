//! Multi-server routing: which server owns a tool name, a prompt, a resource URI (or a
//! template matching it). The client-wide results that tag each item with its server are in
//! [`crate::catalog`].

use crate::types::{Resource, ResourceTemplate};

/// What a client-wide request was routed by, for [`RouteError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RouteKind {
    /// A prompt, by name (`prompts/get`, a prompt completion).
    Prompt,
    /// A resource, by URI: listed under it, or matched by a resource template (`resources/read`,
    /// a resource completion).
    Resource,
}

impl std::fmt::Display for RouteKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RouteKind::Prompt => "prompt",
            RouteKind::Resource => "resource",
        })
    }
}

/// Why a request could not be routed to one server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// No server has that name.
    #[error("unknown server {0:?}")]
    UnknownServer(String),
    /// No server offers a tool with that name.
    #[error("no server offers a tool named {0:?}")]
    UnknownTool(String),
    /// Several servers offer it; name one explicitly.
    #[error("tool {name:?} is offered by several servers ({}); name the server", servers.join(", "))]
    Ambiguous {
        /// The tool name.
        name: String,
        /// The servers offering it.
        servers: Vec<String>,
    },
    /// No server offers that prompt or resource.
    #[error("no server offers a {kind} named {name:?}")]
    NotOffered {
        /// What was looked for.
        kind: RouteKind,
        /// The prompt name or resource URI.
        name: String,
    },
    /// Several servers offer that prompt or resource; name the server.
    #[error("{kind} {name:?} is offered by several servers ({}); name the server", servers.join(", "))]
    AmbiguousOwner {
        /// What was looked for.
        kind: RouteKind,
        /// The prompt name or resource URI.
        name: String,
        /// The servers offering it, in configuration order.
        servers: Vec<String>,
    },
    /// The request follows no routing rule (a list, a task, a custom request...) and the client
    /// has several servers: name one.
    #[error("{method} goes to one server and this client has several ({}): name the server", servers.join(", "))]
    ServerNeeded {
        /// The request's method.
        method: String,
        /// The client's servers, in configuration order.
        servers: Vec<String>,
    },
}

/// What a client with several servers routes a request by when no server is named
/// ([`Request::routing`](crate::Request::routing)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Routing<'a> {
    /// The one server whose tool list has this tool.
    Tool(&'a str),
    /// The one server whose prompt list has this prompt.
    Prompt(&'a str),
    /// The one server that lists this resource URI, or else the one whose template matches it.
    Resource(&'a str),
    /// No rule: the request must name its server.
    Unrouted,
}

/// Picks the server for `tool`: the explicit `server` if given (it must exist), otherwise the
/// only server whose tool list contains it. `catalog` yields each server's name and tool names.
pub fn route_tool<'a, I, T>(tool: &str, server: Option<&str>, catalog: I) -> Result<&'a str, RouteError>
where
    I: IntoIterator<Item = (&'a str, T)>,
    T: IntoIterator<Item = &'a str>,
{
    let mut owners = Vec::new();
    for (name, tools) in catalog {
        if let Some(wanted) = server {
            if name == wanted {
                return Ok(name);
            }
            continue;
        }
        if tools.into_iter().any(|t| t == tool) {
            owners.push(name);
        }
    }
    if let Some(wanted) = server {
        return Err(RouteError::UnknownServer(wanted.to_owned()));
    }
    match owners.as_slice() {
        [] => Err(RouteError::UnknownTool(tool.to_owned())),
        [one] => Ok(one),
        many => Err(RouteError::Ambiguous {
            name: tool.to_owned(),
            servers: many.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// Picks the one server for which `offers` is true, for a `kind` item called `name`:
/// [`RouteError::NotOffered`] when none does, [`RouteError::AmbiguousOwner`] when several do.
pub fn route_item<'a, I>(kind: RouteKind, name: &str, offers: I) -> Result<&'a str, RouteError>
where
    I: IntoIterator<Item = (&'a str, bool)>,
{
    let owners: Vec<&str> = offers.into_iter().filter(|(_, yes)| *yes).map(|(server, _)| server).collect();
    match owners.as_slice() {
        [] => Err(RouteError::NotOffered { kind, name: name.to_owned() }),
        [one] => Ok(one),
        many => Err(RouteError::AmbiguousOwner {
            kind,
            name: name.to_owned(),
            servers: many.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// Picks the server for resource `uri`: the one listing it exactly, else the one with a
/// resource template matching it ([`template_matches`]). Each entry of `catalog` is a server's
/// name, its resources and its templates.
pub fn route_resource<'a>(
    uri: &str,
    catalog: &[(&'a str, &[Resource], &[ResourceTemplate])],
) -> Result<&'a str, RouteError> {
    let listed = catalog.iter().map(|(s, res, _)| (*s, res.iter().any(|r| r.uri == uri)));
    match route_item(RouteKind::Resource, uri, listed) {
        Err(RouteError::NotOffered { .. }) => {}
        done => return done,
    }
    let templated = catalog.iter().map(|(s, _, tpl)| {
        (*s, tpl.iter().any(|t| t.uri_template == uri || template_matches(&t.uri_template, uri)))
    });
    route_item(RouteKind::Resource, uri, templated)
}

/// Whether `uri` could be an expansion of the RFC 6570 URI template `template`. Literal parts
/// must match exactly; a simple `{var}` stands for one or more characters other than
/// `/ ? # &`, `{+var}` and `{#var}` (with its `#`) for any characters, and the `/ . ; ? &`
/// operators for their prefix followed by any characters other than `#` (plus `/` and `?` for
/// the path-like ones). A template with an unclosed `{` matches only itself.
pub fn template_matches(template: &str, uri: &str) -> bool {
    let Some(parts) = template_parts(template) else { return template == uri };
    let uri = uri.as_bytes();
    // memo[i][j]: whether parts[i..] match uri[j..] (0 unknown, 1 no, 2 yes).
    let width = uri.len() + 1;
    let mut memo = vec![0u8; (parts.len() + 1) * width];
    fn go(parts: &[Part<'_>], i: usize, uri: &[u8], j: usize, memo: &mut [u8], width: usize) -> bool {
        let slot = i * width + j;
        if memo[slot] != 0 {
            return memo[slot] == 2;
        }
        let yes = match parts.get(i) {
            None => j == uri.len(),
            Some(Part::Literal(lit)) => {
                uri[j..].starts_with(lit.as_bytes()) && go(parts, i + 1, uri, j + lit.len(), memo, width)
            }
            Some(Part::Expr { prefix, stop, min }) => {
                let mut k = j;
                if let Some(p) = prefix {
                    // An undefined variable expands to nothing at all.
                    if go(parts, i + 1, uri, j, memo, width) {
                        memo[slot] = 2;
                        return true;
                    }
                    if uri.get(j) != Some(p) {
                        memo[slot] = 1;
                        return false;
                    }
                    k += 1;
                }
                let start = k;
                let mut found = false;
                loop {
                    if k - start >= *min && go(parts, i + 1, uri, k, memo, width) {
                        found = true;
                        break;
                    }
                    match uri.get(k) {
                        Some(c) if !stop.contains(c) => k += 1,
                        _ => break,
                    }
                }
                found
            }
        };
        memo[slot] = if yes { 2 } else { 1 };
        yes
    }
    go(&parts, 0, uri, 0, &mut memo, width)
}

/// One piece of a URI template.
enum Part<'t> {
    Literal(&'t str),
    /// An expression: the operator's prefix character (if any), the characters its value never
    /// holds, and its least length.
    Expr {
        prefix: Option<u8>,
        stop: &'static [u8],
        min: usize,
    },
}

/// Splits a template into literals and expressions; `None` when a `{` is never closed.
fn template_parts(template: &str) -> Option<Vec<Part<'_>>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(Part::Literal(&rest[..open]));
        }
        let close = rest[open..].find('}')? + open;
        let expr = &rest[open + 1..close];
        parts.push(match expr.as_bytes().first() {
            Some(b'+') => Part::Expr { prefix: None, stop: b"", min: 0 },
            Some(b'#') => Part::Expr { prefix: Some(b'#'), stop: b"", min: 0 },
            Some(b'/') => Part::Expr { prefix: Some(b'/'), stop: b"?#", min: 0 },
            Some(b'.') => Part::Expr { prefix: Some(b'.'), stop: b"/?#", min: 0 },
            Some(b';') => Part::Expr { prefix: Some(b';'), stop: b"/?#", min: 0 },
            Some(b'?') => Part::Expr { prefix: Some(b'?'), stop: b"#", min: 0 },
            Some(b'&') => Part::Expr { prefix: Some(b'&'), stop: b"#", min: 0 },
            _ => Part::Expr { prefix: None, stop: b"/?#&", min: 1 },
        });
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest));
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Vec<(&'static str, Vec<&'static str>)> {
        vec![("a", vec!["echo", "add"]), ("b", vec!["echo", "read"])]
    }

    #[test]
    fn routes_unique_tools() {
        assert_eq!(route_tool("add", None, catalog()), Ok("a"));
        assert_eq!(route_tool("read", None, catalog()), Ok("b"));
    }

    #[test]
    fn ambiguous_unknown_and_override() {
        assert_eq!(
            route_tool("echo", None, catalog()),
            Err(RouteError::Ambiguous { name: "echo".into(), servers: vec!["a".into(), "b".into()] })
        );
        assert_eq!(route_tool("nope", None, catalog()), Err(RouteError::UnknownTool("nope".into())));
        assert_eq!(route_tool("echo", Some("b"), catalog()), Ok("b"));
        assert_eq!(route_tool("echo", Some("c"), catalog()), Err(RouteError::UnknownServer("c".into())));
    }

    #[test]
    fn items_route_to_their_only_owner() {
        let offers = [("a", false), ("b", true), ("c", false)];
        assert_eq!(route_item(RouteKind::Prompt, "p", offers), Ok("b"));
        let none = [("a", false)];
        assert_eq!(
            route_item(RouteKind::Prompt, "p", none),
            Err(RouteError::NotOffered { kind: RouteKind::Prompt, name: "p".into() })
        );
        let both = [("a", true), ("b", true)];
        let err = route_item(RouteKind::Resource, "x://y", both).unwrap_err();
        assert_eq!(
            err.to_string(),
            "resource \"x://y\" is offered by several servers (a, b); name the server"
        );
    }

    fn resource(uri: &str) -> Resource {
        Resource::from_value(serde_json::json!({"uri": uri, "name": uri})).unwrap()
    }

    fn template(t: &str) -> ResourceTemplate {
        ResourceTemplate::from_value(serde_json::json!({"uriTemplate": t, "name": t})).unwrap()
    }

    #[test]
    fn resources_route_by_listing_first_then_by_template() {
        let (a_res, a_tpl) = (vec![resource("file:///etc/hosts")], vec![template("file:///{+path}")]);
        let (b_res, b_tpl) = (vec![resource("test://static/1")], vec![template("test://static/{id}")]);
        let catalog = [("a", &a_res[..], &a_tpl[..]), ("b", &b_res[..], &b_tpl[..])];
        assert_eq!(route_resource("test://static/1", &catalog), Ok("b"), "listed wins");
        assert_eq!(route_resource("test://static/7", &catalog), Ok("b"), "template");
        assert_eq!(route_resource("file:///tmp/x/y", &catalog), Ok("a"));
        assert_eq!(route_resource("test://static/{id}", &catalog), Ok("b"), "the template itself");
        assert!(matches!(route_resource("other://x", &catalog), Err(RouteError::NotOffered { .. })));
        let twice = [("a", &b_res[..], &a_tpl[..]), ("b", &b_res[..], &b_tpl[..])];
        assert!(matches!(route_resource("test://static/1", &twice), Err(RouteError::AmbiguousOwner { .. })));
    }

    #[test]
    fn uri_templates_match_their_expansions() {
        assert!(template_matches("test://static/{id}", "test://static/42"));
        assert!(!template_matches("test://static/{id}", "test://static/"));
        assert!(!template_matches("test://static/{id}", "test://static/4/2"));
        assert!(template_matches("file:///{+path}", "file:///a/b/c.txt"));
        assert!(template_matches("users/{id}{?fields,sort}", "users/7?fields=a&sort=b"));
        assert!(template_matches("users/{id}{?fields}", "users/7"));
        assert!(template_matches("map{/a,b}", "map/1/2"));
        assert!(template_matches("x{.ext}", "x.json"));
        assert!(template_matches("doc{#frag}", "doc#intro"));
        assert!(!template_matches("a/{x}/b", "a/1/c"));
        assert!(template_matches("plain://no-vars", "plain://no-vars"));
        assert!(!template_matches("broken/{x", "broken/1"));
        assert!(template_matches("broken/{x", "broken/{x"));
        // Many expressions over a long input stay cheap (memoised).
        let long = "a".repeat(500);
        assert!(!template_matches("{a}{b}{c}{d}{e}{f}{g}{h}/", &long));
    }
}
