//! The host's handlers for server-to-client requests, and the server list they serve: which
//! client features the installed handlers declare, fixed roots, server-name validation.

use serde_json::{json, Value};

use mcp_core::{ClientError, ClientFeatures, ServerRequestKind, ServerSpec};

/// The host's handlers for server-to-client requests, of whatever callable type a runtime uses.
/// Client capabilities are derived from which handlers are present, never assumed.
#[derive(Clone)]
pub struct HandlerSet<H> {
    /// Answers `roots/list`.
    pub roots: Option<H>,
    /// Answers `sampling/createMessage`.
    pub sampling: Option<H>,
    /// Answers `elicitation/create` (form mode).
    pub elicitation: Option<H>,
}

impl<H> Default for HandlerSet<H> {
    fn default() -> Self {
        Self { roots: None, sampling: None, elicitation: None }
    }
}

impl<H> std::fmt::Debug for HandlerSet<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerSet")
            .field("roots", &self.roots.is_some())
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .finish()
    }
}

impl<H> HandlerSet<H> {
    /// The client features these handlers serve.
    pub fn features(&self) -> ClientFeatures {
        ClientFeatures {
            roots: self.roots.is_some(),
            sampling: self.sampling.is_some(),
            elicitation_form: self.elicitation.is_some(),
            elicitation_url: false,
        }
    }

    /// The handler for a kind of request, if installed.
    pub fn for_kind(&self, kind: ServerRequestKind) -> Option<&H> {
        match kind {
            ServerRequestKind::Roots => self.roots.as_ref(),
            ServerRequestKind::Sampling => self.sampling.as_ref(),
            ServerRequestKind::Elicitation => self.elicitation.as_ref(),
        }
    }
}

/// The local error reported when a request arrives for a handler that is not installed.
pub const NO_HANDLER: &str = "no handler installed";

/// The `roots/list` result for fixed `(uri, optional name)` roots.
pub fn roots_result<I, S>(roots: I) -> Value
where
    I: IntoIterator<Item = (S, Option<S>)>,
    S: Into<String>,
{
    let list: Vec<Value> = roots
        .into_iter()
        .map(|(uri, name)| match name {
            Some(n) => json!({ "uri": uri.into(), "name": n.into() }),
            None => json!({ "uri": uri.into() }),
        })
        .collect();
    json!({ "roots": list })
}

/// Checks a client's server list (at least one; names non-empty and unique) and gives every
/// server the features of the installed handlers.
pub fn prepare_servers(
    specs: Vec<ServerSpec>,
    features: &ClientFeatures,
) -> Result<Vec<ServerSpec>, ClientError> {
    if specs.is_empty() {
        return Err(ClientError::Config("no server configured".into()));
    }
    let mut seen = std::collections::BTreeSet::new();
    specs
        .into_iter()
        .map(|mut spec| {
            if spec.name.is_empty() || !seen.insert(spec.name.clone()) {
                return Err(ClientError::Config(format!(
                    "server name {:?} is empty or used twice",
                    spec.name
                )));
            }
            spec.config.features = features.clone();
            Ok(spec)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::StdioCommand;

    #[test]
    fn features_follow_handlers() {
        let set: HandlerSet<u8> = HandlerSet { roots: Some(1), sampling: None, elicitation: Some(2) };
        let f = set.features();
        assert!(f.roots && !f.sampling && f.elicitation_form && !f.elicitation_url);
        assert_eq!(set.for_kind(ServerRequestKind::Elicitation), Some(&2));
        assert_eq!(set.for_kind(ServerRequestKind::Sampling), None);
    }

    #[test]
    fn server_names_must_be_unique() {
        let s = |n: &str| ServerSpec::stdio(n, StdioCommand::new("x"));
        let f = ClientFeatures { roots: true, ..Default::default() };
        let ok = prepare_servers(vec![s("a"), s("b")], &f).unwrap();
        assert!(ok.iter().all(|s| s.config.features.roots));
        assert!(prepare_servers(vec![s("a"), s("a")], &f).is_err());
        assert!(prepare_servers(vec![s("")], &f).is_err());
        assert!(prepare_servers(vec![], &f).is_err());
    }

    #[test]
    fn roots_json() {
        assert_eq!(
            roots_result([("file:///a", Some("a")), ("file:///b", None)]),
            json!({"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]})
        );
    }
}
