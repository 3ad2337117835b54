//! The client-wide catalog API of a family's `Client`, written once: prompts, resources and
//! resource templates gathered from every server (each item tagged with its server), prompts,
//! resources and completions routed to the server that offers them, and the log level set on
//! every server that declares `logging`. Expanded by
//! [`client_catalog_methods!`](crate::client_catalog_methods) inside each family's
//! `impl Client`, over the `Server` methods of [`server_methods!`](crate::server_methods).
//!
//! Every server is asked at once (at most `max_concurrent_servers` at a time, through the
//! family's `fan_out`); answers keep configuration order.
//!
//! A server that does not declare the capability a request needs is skipped (the core refuses
//! the request before sending it: `RequestError::CapabilityMissing`); a server whose request
//! fails is reported on its own and does not hide the others' answers.

use mcp_core::routing::{is_capability_missing, ClientList, RouteError, RouteKind, ServerFailure};
use mcp_core::{ClientError, ServerTool};

/// Adds one server's answer to a client-wide list: its items tagged by `tag`, or the server as
/// skipped (no capability) or failed.
pub fn gather<T, U>(
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
pub fn gather_all<'a, T, U>(
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
pub fn route_tool_among<'a>(name: &str, tools: &'a ClientList<ServerTool>) -> Result<&'a str, ClientError> {
    let mut owners: Vec<(&str, [&str; 1])> = Vec::new();
    for offer in tools.items.iter().filter(|t| t.tool.name == name) {
        if !owners.iter().any(|(server, _)| *server == offer.server) {
            owners.push((offer.server.as_str(), [offer.tool.name.as_str()]));
        }
    }
    match mcp_core::routing::route_tool(name, None, owners) {
        Err(RouteError::UnknownTool(_)) if !tools.failed.is_empty() => Err(tools.failed[0].error.clone()),
        routed => Ok(routed?),
    }
}

/// Routes `name` among the servers that answered (`offers`); when none offers it and some
/// server could not be asked, that server's error is the answer (the item may be there).
pub fn route_among<'a, I>(
    kind: RouteKind,
    name: &str,
    offers: I,
    failed: &[ServerFailure],
) -> Result<&'a str, ClientError>
where
    I: IntoIterator<Item = (&'a str, bool)>,
{
    match mcp_core::routing::route_item(kind, name, offers) {
        Err(RouteError::NotOffered { .. }) if !failed.is_empty() => Err(failed[0].error.clone()),
        routed => Ok(routed?),
    }
}

/// Defines the client-wide catalog methods of a family's `Client`:
/// `client_catalog_methods!(async await)` or `client_catalog_methods!()`. Needs
/// `servers: Arc<[Server]>`, the family's `fan_out` and the private `named` of
/// [`client_methods!`](crate::client_methods).
#[macro_export]
macro_rules! client_catalog_methods {
    ($($async:ident $await:ident)?) => {
        /// Sets the log level on every server that declares `logging` (`logging/setLevel`; on
        /// 2026-07-28 servers the level is sent with each later request), at most
        /// [`ClientBuilder::max_concurrent_servers`] servers at once. Servers that do not
        /// declare it are skipped without anything being sent; a server that fails does not
        /// stop the others. The report names each server's outcome, in configuration order.
        pub $($async)? fn set_log_level(
            &self,
            level: $crate::mcp_core::types::LoggingLevel,
        ) -> $crate::mcp_core::routing::LogLevelReport {
            use $crate::mcp_core::routing::{is_capability_missing, LogLevelReport, ServerFailure};
            let outcomes = self.fan_out(move |s| s.set_log_level(level))$(.$await)?;
            let mut report = LogLevelReport::default();
            for (s, outcome) in self.servers.iter().zip(outcomes) {
                let server = s.name().to_owned();
                match outcome {
                    Ok(()) => report.set.push(server),
                    Err(e) if is_capability_missing(&e) => report.skipped.push(server),
                    Err(error) => report.failed.push(ServerFailure { server, error }),
                }
            }
            report
        }

        /// The prompts of every server that declares `prompts`, each tagged with its server,
        /// asking at most [`ClientBuilder::max_concurrent_servers`] servers at once; a failing
        /// server is reported in [`ClientList::failed`](mcp_core::routing::ClientList) and the
        /// others' prompts are still returned.
        pub $($async)? fn list_prompts(
            &self,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::routing::ServerPrompt> {
            let answers = self.fan_out(|s| s.list_prompts())$(.$await)?;
            let answers = self.servers.iter().map(|s| s.name()).zip(answers);
            $crate::catalog_gather_all(answers, |server, prompt| {
                $crate::mcp_core::routing::ServerPrompt { server, prompt }
            })
        }

        /// The resources of every server that declares `resources`, each tagged with its
        /// server (asked at once, failing servers reported apart, as for [`Self::list_prompts`]).
        pub $($async)? fn list_resources(
            &self,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::routing::ServerResource> {
            let answers = self.fan_out(|s| s.list_resources())$(.$await)?;
            let answers = self.servers.iter().map(|s| s.name()).zip(answers);
            $crate::catalog_gather_all(answers, |server, resource| {
                $crate::mcp_core::routing::ServerResource { server, resource }
            })
        }

        /// The resource templates of every server that declares `resources`, each tagged with
        /// its server (asked at once, failing servers reported apart, as for
        /// [`Self::list_prompts`]).
        pub $($async)? fn list_resource_templates(
            &self,
        ) -> $crate::mcp_core::routing::ClientList<$crate::mcp_core::routing::ServerResourceTemplate> {
            let answers = self.fan_out(|s| s.list_resource_templates())$(.$await)?;
            let answers = self.servers.iter().map(|s| s.name()).zip(answers);
            $crate::catalog_gather_all(answers, |server, template| {
                $crate::mcp_core::routing::ServerResourceTemplate { server, template }
            })
        }

        /// A server's resources and resource templates, one list after the other.
        $($async)? fn resources_and_templates_of(
            server: &Server,
        ) -> (
            Result<Vec<$crate::mcp_core::types::Resource>, $crate::mcp_core::ClientError>,
            Result<Vec<$crate::mcp_core::types::ResourceTemplate>, $crate::mcp_core::ClientError>,
        ) {
            let resources = server.list_resources()$(.$await)?;
            (resources, server.list_resource_templates()$(.$await)?)
        }

        /// The server offering prompt `name`: the only server, or the one whose prompt list
        /// (cached while fresh, else fetched) names it.
        $($async)? fn prompt_owner(&self, name: &str) -> Result<&Server, $crate::mcp_core::ClientError> {
            if let [only] = &self.servers[..] {
                return Ok(only);
            }
            let list = self.list_prompts()$(.$await)?;
            let offers = self.servers.iter().map(|s| {
                (s.name(), list.items.iter().any(|p| p.server == s.name() && p.prompt.name == name))
            });
            let owner = $crate::catalog_route_among(
                $crate::mcp_core::routing::RouteKind::Prompt, name, offers, &list.failed,
            )?;
            self.named(owner)
        }

        /// The server offering resource `uri`: the only server, or the one listing it, else the
        /// one with a resource template matching it.
        $($async)? fn resource_owner(&self, uri: &str) -> Result<&Server, $crate::mcp_core::ClientError> {
            if let [only] = &self.servers[..] {
                return Ok(only);
            }
            let answers = self.fan_out(|s| Self::resources_and_templates_of(s))$(.$await)?;
            let (resource_answers, template_answers): (Vec<_>, Vec<_>) = answers.into_iter().unzip();
            let names = || self.servers.iter().map(|s| s.name());
            let resources = $crate::catalog_gather_all(names().zip(resource_answers), |server, resource| {
                $crate::mcp_core::routing::ServerResource { server, resource }
            });
            let templates = $crate::catalog_gather_all(names().zip(template_answers), |server, template| {
                $crate::mcp_core::routing::ServerResourceTemplate { server, template }
            });
            let listed =
                |s: &Server| resources.items.iter().any(|r| r.server == s.name() && r.resource.uri == uri);
            let owner = match $crate::mcp_core::routing::route_item(
                $crate::mcp_core::routing::RouteKind::Resource,
                uri,
                self.servers.iter().map(|s| (s.name(), listed(s))),
            ) {
                Err($crate::mcp_core::routing::RouteError::NotOffered { .. }) => {
                    let templated = |s: &Server| {
                        templates.items.iter().any(|t| {
                            t.server == s.name()
                                && (t.template.uri_template == uri
                                    || $crate::mcp_core::routing::template_matches(
                                        &t.template.uri_template,
                                        uri,
                                    ))
                        })
                    };
                    let mut failed = resources.failed.clone();
                    failed.extend(templates.failed.iter().cloned());
                    $crate::catalog_route_among(
                        $crate::mcp_core::routing::RouteKind::Resource,
                        uri,
                        self.servers.iter().map(|s| (s.name(), templated(s))),
                        &failed,
                    )?
                }
                routed => routed?,
            };
            self.named(owner)
        }

        /// Gets a prompt from the server that offers it (an error naming the servers when
        /// several do: use [`Self::get_prompt_on`]).
        pub $($async)? fn get_prompt(
            &self,
            name: &str,
            arguments: $crate::serde_json::Map<String, $crate::serde_json::Value>,
        ) -> Result<$crate::mcp_core::types::GetPromptResult, $crate::mcp_core::ClientError> {
            self.prompt_owner(name)$(.$await)??.get_prompt(name, arguments)$(.$await)?
        }

        /// Gets a prompt from a named server.
        pub $($async)? fn get_prompt_on(
            &self,
            server: &str,
            name: &str,
            arguments: $crate::serde_json::Map<String, $crate::serde_json::Value>,
        ) -> Result<$crate::mcp_core::types::GetPromptResult, $crate::mcp_core::ClientError> {
            self.named(server)?.get_prompt(name, arguments)$(.$await)?
        }

        /// Reads a resource from the server that lists it or has a template matching it (an
        /// error naming the servers when several do: use [`Self::read_resource_on`]).
        pub $($async)? fn read_resource(
            &self,
            uri: &str,
        ) -> Result<$crate::mcp_core::types::ReadResourceResult, $crate::mcp_core::ClientError> {
            self.resource_owner(uri)$(.$await)??.read_resource(uri)$(.$await)?
        }

        /// Reads a resource from a named server.
        pub $($async)? fn read_resource_on(
            &self,
            server: &str,
            uri: &str,
        ) -> Result<$crate::mcp_core::types::ReadResourceResult, $crate::mcp_core::ClientError> {
            self.named(server)?.read_resource(uri)$(.$await)?
        }

        /// Asks for completions of an argument, on the server offering the prompt or resource
        /// (template) the reference names.
        pub $($async)? fn complete(
            &self,
            reference: $crate::mcp_core::types::CompletionReference,
            argument: &str,
            value: &str,
        ) -> Result<$crate::mcp_core::types::CompleteResult, $crate::mcp_core::ClientError> {
            self.complete_with(reference, argument, value, Default::default())$(.$await)?
        }

        /// [`Self::complete`] with the values of the arguments already resolved.
        pub $($async)? fn complete_with(
            &self,
            reference: $crate::mcp_core::types::CompletionReference,
            argument: &str,
            value: &str,
            context: std::collections::BTreeMap<String, String>,
        ) -> Result<$crate::mcp_core::types::CompleteResult, $crate::mcp_core::ClientError> {
            use $crate::mcp_core::types::CompletionReference;
            let server = match &reference {
                CompletionReference::Prompt { name } => self.prompt_owner(name)$(.$await)??,
                CompletionReference::Resource { uri } => self.resource_owner(uri)$(.$await)??,
            };
            if context.is_empty() {
                server.complete(reference, argument, value)$(.$await)?
            } else {
                server.complete_with(reference, argument, value, context)$(.$await)?
            }
        }

        /// Asks a named server for completions of an argument.
        pub $($async)? fn complete_on(
            &self,
            server: &str,
            reference: $crate::mcp_core::types::CompletionReference,
            argument: &str,
            value: &str,
        ) -> Result<$crate::mcp_core::types::CompleteResult, $crate::mcp_core::ClientError> {
            self.named(server)?.complete(reference, argument, value)$(.$await)?
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::types::Tool;

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
