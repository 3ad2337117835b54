//! The client-wide catalog: prompts, resources and resource templates gathered from every
//! server (each item tagged with its server), prompts, resources and completions routed to the
//! server that offers them, and the log level set on every server that declares `logging`.
//!
//! A server that does not declare the capability a request needs is skipped (the core refuses
//! the request before sending it: `RequestError::CapabilityMissing`); a server whose request
//! fails is reported on its own and does not hide the others' answers.

use mcpwire_core::calls::{Complete, GetPrompt, ReadResource};
use mcpwire_core::catalog::{
    is_capability_missing, ClientList, LogLevelReport, ServerFailure, ServerPrompt, ServerResource,
    ServerResourceTemplate,
};
use mcpwire_core::types::{CompletionReference, LoggingLevel};

use crate::client::Client;
use crate::client_routing::gather_all;
use crate::family::Family;
use crate::pending_op::Pending;
use crate::request_builder::RequestBuilder;
use crate::server::{get_prompt, Arguments};

impl<F: Family> Client<F> {
    /// Sets the log level of every server that declares `logging`; the report names the
    /// servers set, skipped (no `logging` capability) and failed.
    pub fn set_log_level(&self, level: LoggingLevel) -> Pending<'_, F, LogLevelReport> {
        Pending::new(async move {
            let outcomes = self.fan_out(move |s| async move { s.set_log_level(level).start().await }).await;
            let mut report = LogLevelReport::default();
            for (s, outcome) in self.servers().iter().zip(outcomes) {
                let server = s.name().to_owned();
                match outcome {
                    Ok(()) => report.set.push(server),
                    Err(e) if is_capability_missing(&e) => report.skipped.push(server),
                    Err(error) => report.failed.push(ServerFailure { server, error }),
                }
            }
            report
        })
    }

    /// The prompts of every server, each tagged with its server (servers without `prompts`
    /// skipped, failures reported per server).
    pub fn list_prompts(&self) -> Pending<'_, F, ClientList<ServerPrompt>> {
        Pending::new(self.gather_prompts())
    }

    pub(crate) async fn gather_prompts(&self) -> ClientList<ServerPrompt> {
        let answers = self.fan_out(|s| async move { s.list_prompts().start().await }).await;
        let answers = self.servers().iter().map(|s| s.name()).zip(answers);
        gather_all(answers, |server, prompt| ServerPrompt { server, prompt })
    }

    /// The resources of every server, each tagged with its server.
    pub fn list_resources(&self) -> Pending<'_, F, ClientList<ServerResource>> {
        Pending::new(async move {
            let answers = self.fan_out(|s| async move { s.list_resources().start().await }).await;
            let answers = self.servers().iter().map(|s| s.name()).zip(answers);
            gather_all(answers, |server, resource| ServerResource { server, resource })
        })
    }

    /// The resource templates of every server, each tagged with its server.
    pub fn list_resource_templates(&self) -> Pending<'_, F, ClientList<ServerResourceTemplate>> {
        Pending::new(async move {
            let answers = self.fan_out(|s| async move { s.list_resource_templates().start().await }).await;
            let answers = self.servers().iter().map(|s| s.name()).zip(answers);
            gather_all(answers, |server, template| ServerResourceTemplate { server, template })
        })
    }

    /// Gets a prompt from the server that offers it (or the one named with
    /// [`RequestBuilder::server`]); `arguments` ([`Arguments`]) is an object of strings.
    pub fn get_prompt(&self, name: &str, arguments: impl Arguments) -> RequestBuilder<'_, F, GetPrompt> {
        RequestBuilder::to_client(self, get_prompt(name, arguments))
    }

    /// Reads a resource from the server that lists it, else the one with a template matching
    /// the URI (or the one named with [`RequestBuilder::server`]).
    pub fn read_resource(&self, uri: &str) -> RequestBuilder<'_, F, ReadResource> {
        RequestBuilder::to_client(self, Ok(ReadResource::new(uri)))
    }

    /// Asks the server that offers the prompt or resource of `reference` for completions of
    /// an argument (or the one named with [`RequestBuilder::server`]).
    pub fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
    ) -> RequestBuilder<'_, F, Complete> {
        RequestBuilder::to_client(self, Ok(Complete::new(reference, argument, value)))
    }
}
