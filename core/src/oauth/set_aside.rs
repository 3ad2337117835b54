//! Grants set aside: when the authorization server behind the MCP server changes, the old
//! one's client and tokens leave the server's slot and are kept under their issuer (the MCP
//! server plus the issuer is their key), to be resumed — presented again, refreshed if
//! needed, without a new sign-in — if the MCP server names that authorization server again.
//! A set-aside token is never presented, nor refreshed, while it is set aside, and never
//! leaves for another issuer's endpoints. `Credentials` (credentials.rs) keeps
//! them and switches between them.

use crate::oauth::registration::ClientRegistration;
use crate::oauth::token::Tokens;

/// Most grants kept set aside (one per authorization server; the oldest goes first).
pub const MAX_SET_ASIDE: usize = 8;

/// One authorization server's grant, out of use: the client that obtained the tokens (a
/// refresh needs the same one) and the tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetAside {
    pub client: ClientRegistration,
    pub tokens: Tokens,
}
