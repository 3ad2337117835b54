//! Multi-server routing: which server owns a tool name.

/// Why a tool call could not be routed.
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
}
