//! How a client with several servers picks the one a request goes to: by tool name (from
//! each server's tool list, cached while fresh), by prompt name, by resource URI (listed, else
//! matched by a resource template). A server that cannot answer does not stop the others:
//! when no server that answered offers the item, its failure is the answer.

use mcpwire_core::catalog::{
    is_capability_missing, ClientList, ServerFailure, ServerResource, ServerResourceTemplate,
};
use mcpwire_core::routing::{route_item, template_matches, RouteError, RouteKind, Routing};
use mcpwire_core::types::{Resource, ResourceTemplate};
use mcpwire_core::{ClientError, Request, ServerTool};

use crate::client::Client;
use crate::family::Family;
use crate::server::Server;

/// Adds one server's answer to a client-wide list: its items tagged by `tag`, or the server as
/// skipped (no capability) or failed.
pub(crate) fn gather<T, U>(
    list: &mut ClientList<U>,
    server: &str,
    answer: Result<Vec<T>, ClientError>,
    tag: impl Fn(String, T) -> U,
) {
    match answer {
        Ok(items) => list.items.extend(items.into_iter().map(|item| tag(server.to_owned(), item))),
        Err(e) if is_capability_missing(&e) => list.skipped.push(server.to_owned()),
        Err(error) => list.failed.push(ServerFailure { server: server.to_owned(), error }),
    }
}

/// A client-wide list from every server's answer, in configuration order (see [`gather`]).
pub(crate) fn gather_all<'a, T, U>(
    answers: impl IntoIterator<Item = (&'a str, Result<Vec<T>, ClientError>)>,
    tag: impl Fn(String, T) -> U,
) -> ClientList<U> {
    let mut list = ClientList::default();
    for (server, answer) in answers {
        gather(&mut list, server, answer, &tag);
    }
    list
}

/// Routes tool `name` among the servers that listed their tools: the one server offering it
/// ([`RouteError::Ambiguous`] when several do). When none offers it and some server could not
/// list its tools, that server's error is the answer (the tool may be there).
pub(crate) fn route_tool_among<'a>(
    name: &str,
    tools: &'a ClientList<ServerTool>,
) -> Result<&'a str, ClientError> {
    let mut owners: Vec<(&str, [&str; 1])> = Vec::new();
    for offer in tools.items.iter().filter(|t| t.tool.name == name) {
        if !owners.iter().any(|(server, _)| *server == offer.server) {
            owners.push((offer.server.as_str(), [offer.tool.name.as_str()]));
        }
    }
    match mcpwire_core::routing::route_tool(name, None, owners) {
        Err(RouteError::UnknownTool(_)) if !tools.failed.is_empty() => Err(tools.failed[0].error.clone()),
        routed => Ok(routed?),
    }
}

/// Routes `name` among the servers that answered (`offers`); when none offers it and some
/// server could not be asked, that server's error is the answer (the item may be there).
pub(crate) fn route_among<'a, I>(
    kind: RouteKind,
    name: &str,
    offers: I,
    failed: &[ServerFailure],
) -> Result<&'a str, ClientError>
where
    I: IntoIterator<Item = (&'a str, bool)>,
{
    match mcpwire_core::routing::route_item(kind, name, offers) {
        Err(RouteError::NotOffered { .. }) if !failed.is_empty() => Err(failed[0].error.clone()),
        routed => Ok(routed?),
    }
}

impl<F: Family> Client<F> {
    /// The server `request` goes to when none is named: the only one, or the one its routing
    /// rule picks.
    pub(crate) async fn route(&self, request: &Request) -> Result<&Server<F>, ClientError> {
        if let [only] = self.servers() {
            return Ok(only);
        }
        match request.routing() {
            Routing::Tool(name) => {
                let catalog = self.tool_catalog().await;
                self.named(route_tool_among(name, &catalog)?)
            }
            Routing::Prompt(name) => self.prompt_owner(name).await,
            Routing::Resource(uri) => self.resource_owner(uri).await,
            _ => Err(RouteError::ServerNeeded {
                method: request.method().to_owned(),
                servers: self.servers().iter().map(|s| s.name().to_owned()).collect(),
            }
            .into()),
        }
    }

    /// The one server whose prompt list has `name`.
    async fn prompt_owner(&self, name: &str) -> Result<&Server<F>, ClientError> {
        let list = self.gather_prompts().await;
        let offers = self
            .servers()
            .iter()
            .map(|s| (s.name(), list.items.iter().any(|p| p.server == s.name() && p.prompt.name == name)));
        self.named(route_among(RouteKind::Prompt, name, offers, &list.failed)?)
    }

    /// The one server that lists resource `uri`, else the one with a template matching it.
    async fn resource_owner(&self, uri: &str) -> Result<&Server<F>, ClientError> {
        let answers = self.fan_out(|s| resources_and_templates_of(s)).await;
        let (resource_answers, template_answers): (Vec<_>, Vec<_>) = answers.into_iter().unzip();
        let names = || self.servers().iter().map(|s| s.name());
        let resources =
            gather_all(names().zip(resource_answers), |server, resource| ServerResource { server, resource });
        let templates = gather_all(names().zip(template_answers), |server, template| {
            ServerResourceTemplate { server, template }
        });
        let listed =
            |s: &Server<F>| resources.items.iter().any(|r| r.server == s.name() && r.resource.uri == uri);
        let owner = match route_item(
            RouteKind::Resource,
            uri,
            self.servers().iter().map(|s| (s.name(), listed(s))),
        ) {
            Err(RouteError::NotOffered { .. }) => {
                let templated = |s: &Server<F>| {
                    templates.items.iter().any(|t| {
                        t.server == s.name()
                            && (t.template.uri_template == uri
                                || template_matches(&t.template.uri_template, uri))
                    })
                };
                let mut failed = resources.failed.clone();
                failed.extend(templates.failed.iter().cloned());
                let offers = self.servers().iter().map(|s| (s.name(), templated(s)));
                route_among(RouteKind::Resource, uri, offers, &failed)?
            }
            routed => routed?,
        };
        self.named(owner)
    }
}

/// A server's resources and resource templates.
async fn resources_and_templates_of<F: Family>(
    server: &Server<F>,
) -> (Result<Vec<Resource>, ClientError>, Result<Vec<ResourceTemplate>, ClientError>) {
    let resources = server.list_resources().start().await;
    (resources, server.list_resource_templates().start().await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::types::Tool;

    fn offer(server: &str, tool: &str) -> ServerTool {
        let tool =
            Tool::from_value(serde_json::json!({"name": tool, "inputSchema": {"type": "object"}})).unwrap();
        ServerTool { server: server.into(), tool }
    }

    fn catalog(failed: bool) -> ClientList<ServerTool> {
        let items = vec![offer("a", "echo"), offer("a", "add"), offer("b", "echo"), offer("b", "read")];
        let mut list = ClientList { items, ..ClientList::default() };
        if failed {
            list.failed.push(ServerFailure { server: "dead".into(), error: ClientError::Closed });
        }
        list
    }

    #[test]
    fn tools_route_among_the_servers_that_answered() {
        for failed in [false, true] {
            assert_eq!(route_tool_among("add", &catalog(failed)), Ok("a"), "failed: {failed}");
            assert_eq!(route_tool_among("read", &catalog(failed)), Ok("b"), "failed: {failed}");
            let ambiguous =
                RouteError::Ambiguous { name: "echo".into(), servers: vec!["a".into(), "b".into()] };
            assert_eq!(route_tool_among("echo", &catalog(failed)), Err(ambiguous.into()), "failed: {failed}");
        }
        let unknown = RouteError::UnknownTool("nope".into());
        assert_eq!(route_tool_among("nope", &catalog(false)), Err(unknown.into()));
        assert_eq!(route_tool_among("nope", &catalog(true)), Err(ClientError::Closed), "the failure answers");
    }

    #[test]
    fn a_server_listing_a_tool_twice_is_one_owner() {
        let mut list = catalog(false);
        list.items.push(offer("a", "add"));
        assert_eq!(route_tool_among("add", &list), Ok("a"));
    }
}
