//! Why an answer to a server request was not sent.

/// Why [`crate::Connection::respond_to_server`] did not send an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// The server request is gone (answered already, withdrawn, or its process ended).
    #[error("the server request is gone (answered, withdrawn, or its process ended)")]
    Gone,
    /// The elicitation answer does not match the requested form; nothing was sent and the
    /// request still waits for an answer.
    #[error(transparent)]
    InvalidAnswer(#[from] crate::schema::elicitation::ElicitationError),
}
