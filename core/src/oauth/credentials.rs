//! [`Credentials`]: the client and tokens in use, the dynamic registrations kept per
//! authorization server, and the grants set aside. Tokens and a client of another
//! authorization server than the one in use never stay in use.

use crate::oauth::registration::ClientRegistration;
use crate::oauth::set_aside::{SetAside, MAX_SET_ASIDE};
use crate::oauth::token::Tokens;

/// Most client registrations kept (one per authorization server met).
pub const MAX_REGISTRATIONS: usize = 16;

/// What the flow holds to act at authorization servers.
#[derive(Debug, Default)]
pub(crate) struct Credentials {
    /// The client in use.
    client: Option<ClientRegistration>,
    /// The tokens in use.
    tokens: Option<Tokens>,
    /// Registrations obtained by dynamic registration, one per authorization server.
    registrations: Vec<ClientRegistration>,
    /// Grants of authorization servers the MCP server named before, by issuer, the oldest
    /// first.
    set_aside: Vec<SetAside>,
}

impl Credentials {
    /// Everything from a stored record (already checked).
    pub(crate) fn restored(
        client: Option<ClientRegistration>,
        tokens: Option<Tokens>,
        registrations: Vec<ClientRegistration>,
        set_aside: Vec<SetAside>,
    ) -> Self {
        Self { client, tokens, registrations, set_aside }
    }

    /// The client in use.
    pub(crate) fn client(&self) -> Option<&ClientRegistration> {
        self.client.as_ref()
    }

    /// The tokens in use.
    pub(crate) fn tokens(&self) -> Option<&Tokens> {
        self.tokens.as_ref()
    }

    /// The dynamic registrations kept.
    pub(crate) fn registrations(&self) -> &[ClientRegistration] {
        &self.registrations
    }

    /// The grants set aside, the oldest first.
    pub(crate) fn set_aside(&self) -> &[SetAside] {
        &self.set_aside
    }

    /// The client a request is about to be made with is the one in use.
    pub(crate) fn use_client(&mut self, client: ClientRegistration) {
        self.client = Some(client);
    }

    /// New tokens are in use.
    pub(crate) fn use_tokens(&mut self, tokens: Tokens) {
        self.tokens = Some(tokens);
    }

    /// The refresh token in use is dead (or not to be tried again).
    pub(crate) fn drop_refresh_token(&mut self) {
        if let Some(t) = self.tokens.as_mut() {
            t.refresh_token = None;
        }
    }

    /// Keeps a new dynamic registration, replacing its issuer's, the oldest going beyond
    /// [`MAX_REGISTRATIONS`].
    pub(crate) fn keep_registration(&mut self, reg: ClientRegistration) {
        self.registrations.retain(|r| r.issuer != reg.issuer);
        if self.registrations.len() >= MAX_REGISTRATIONS {
            self.registrations.remove(0);
        }
        self.registrations.push(reg);
    }

    /// Whether the refresh token can be used at the authorization server `issuer` (in use):
    /// tokens with one, and the client, both from that server.
    pub(crate) fn can_refresh(&self, issuer: Option<&str>) -> bool {
        match (&self.tokens, issuer, &self.client) {
            (Some(t), Some(i), Some(c)) => t.refresh_token.is_some() && t.issuer == i && c.issuer == i,
            _ => false,
        }
    }

    /// The authorization server `issuer` is in use for `resource`: tokens and a client of
    /// another server are dropped, and tokens obtained for another audience.
    pub(crate) fn keep_for(&mut self, issuer: &str, resource: &str) {
        if self.tokens.as_ref().is_some_and(|t| t.issuer != issuer) {
            self.tokens = None;
        }
        if self.client.as_ref().is_some_and(|c| c.issuer != issuer) {
            self.client = None;
        }
        if self.tokens.as_ref().is_some_and(|t| t.resource != resource) {
            // Obtained for another audience (the resource metadata changed its `resource`).
            self.tokens = None;
        }
    }

    /// The MCP server now names `issuer`, which is not the authorization server in use: the
    /// current grant (tokens and the client of one other issuer) is set aside under its
    /// issuer, and `issuer`'s own grant, if one is set aside and was obtained for `resource`,
    /// is taken back. Returns whether one was; a grant for another resource is dropped.
    /// Anything else held stays for the caller to judge.
    pub(crate) fn switch_to(&mut self, issuer: &str, resource: &str) -> bool {
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
        if grant.tokens.resource != resource {
            return false;
        }
        self.tokens = Some(grant.tokens);
        self.client = Some(grant.client);
        true
    }
}
