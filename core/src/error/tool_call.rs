//! A provider's tool call that could not be read (see `crate::tool_formats`).

/// A provider's tool call that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolCallError {
    /// The value does not have the provider's tool-call shape.
    #[error("not a {provider} tool call: {detail}")]
    Shape {
        /// The provider whose shape was expected.
        provider: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// The arguments are not a JSON object (or a string holding one, for OpenAI).
    #[error("the tool call's arguments are not a JSON object: {0}")]
    Arguments(String),
    /// The name is not one of the converted tools.
    #[error("the model called {0:?}, which is not one of the converted tools")]
    UnknownName(String),
}
