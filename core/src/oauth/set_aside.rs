//! Grants set aside: when the authorization server behind the MCP server changes, the old
//! one's client and tokens leave the server's slot and are kept under their issuer (the MCP
//! server plus the issuer is their key), to be resumed — presented again, refreshed if
//! needed, without a new sign-in — if the MCP server names that authorization server again.
//! A set-aside token is never presented, nor refreshed, while it is set aside, and never
//! leaves for another issuer's endpoints.

use crate::oauth::registration::ClientRegistration;
use crate::oauth::token::Tokens;
use crate::oauth::AuthFlow;

/// Most grants kept set aside (one per authorization server; the oldest goes first).
pub const MAX_SET_ASIDE: usize = 8;

/// One authorization server's grant, out of use: the client that obtained the tokens (a
/// refresh needs the same one) and the tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SetAside {
    pub client: ClientRegistration,
    pub tokens: Tokens,
}

impl AuthFlow {
    /// The issuers whose grants are set aside, the oldest first.
    pub fn set_aside_issuers(&self) -> impl Iterator<Item = &str> {
        self.set_aside.iter().map(|g| g.tokens.issuer.as_str())
    }

    /// The MCP server now names `issuer`, which is not the authorization server in use: the
    /// current grant (tokens and the client of one other issuer) is set aside under its
    /// issuer, and `issuer`'s own grant, if one is set aside and was obtained for the current
    /// resource, is taken back. Returns whether one was; a grant for another resource is
    /// dropped. Anything else held stays for the caller to judge.
    pub(crate) fn switch_grant(&mut self, issuer: &str) -> bool {
        match (self.tokens.take(), self.client.take()) {
            (Some(tokens), Some(client)) if tokens.issuer == client.issuer && tokens.issuer != issuer => {
                self.set_aside.retain(|g| g.tokens.issuer != tokens.issuer);
                if self.set_aside.len() >= MAX_SET_ASIDE {
                    self.set_aside.remove(0);
                }
                self.set_aside.push(SetAside { client, tokens });
            }
            (tokens, client) => {
                self.tokens = tokens;
                self.client = client;
            }
        }
        let index = self.set_aside.iter().position(|g| g.tokens.issuer == issuer);
        let own_held = self.tokens.as_ref().is_some_and(|t| t.issuer == issuer);
        let Some(index) = index.filter(|_| !own_held) else { return false };
        let grant = self.set_aside.remove(index);
        if grant.tokens.resource != self.resource() {
            return false;
        }
        self.tokens = Some(grant.tokens);
        self.client = Some(grant.client);
        true
    }
}
