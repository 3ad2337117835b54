//! [`Discovered`]: the metadata discovery found, which outlives the round that found it (a
//! later round, and a stored record, start from it).

use crate::oauth::metadata::{AuthServerMetadata, ResourceMetadata};

/// The Protected Resource Metadata and the authorization server metadata in use.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    /// The resource metadata; `None` before discovery and for a server without any (the
    /// 2025-03-26 fallback).
    prm: Option<ResourceMetadata>,
    /// The authorization server in use.
    meta: Option<AuthServerMetadata>,
}

impl Discovered {
    /// Both, from a stored record.
    pub(crate) fn restored(prm: Option<ResourceMetadata>, meta: Option<AuthServerMetadata>) -> Self {
        Self { prm, meta }
    }

    /// The Protected Resource Metadata, when the server published it.
    pub(crate) fn prm(&self) -> Option<&ResourceMetadata> {
        self.prm.as_ref()
    }

    /// The authorization server metadata in use.
    pub(crate) fn meta(&self) -> Option<&AuthServerMetadata> {
        self.meta.as_ref()
    }

    /// The issuer of the authorization server in use.
    pub(crate) fn issuer(&self) -> Option<&str> {
        self.meta.as_ref().map(|m| m.issuer.as_str())
    }

    /// New resource metadata (or none: the legacy fallback).
    pub(crate) fn set_prm(&mut self, prm: Option<ResourceMetadata>) {
        self.prm = prm;
    }

    /// The authorization server now in use.
    pub(crate) fn set_meta(&mut self, meta: AuthServerMetadata) {
        self.meta = Some(meta);
    }

    /// The `resource` parameter (RFC 8707): the resource metadata's, else `default`.
    pub(crate) fn resource<'a>(&'a self, default: &'a str) -> &'a str {
        self.prm.as_ref().map_or(default, |p| &p.resource)
    }
}
