//! Provider-visible tool names: valid for the provider, unique across servers, deterministic.

use std::collections::{BTreeMap, BTreeSet};

use super::Provider;
use crate::server_spec::ServerTool;

/// The longest name every supported provider accepts.
pub(super) const MAX_NAME: usize = 64;

/// Whether `name` is acceptable to `provider` as it is.
pub(super) fn is_valid(provider: Provider, name: &str) -> bool {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let first_ok = match provider {
        Provider::Google => name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'),
        Provider::OpenAi | Provider::Anthropic => true,
    };
    !name.is_empty() && name.len() <= MAX_NAME && first_ok && name.chars().all(allowed)
}

/// `name` with every character outside `[A-Za-z0-9_-]` replaced by `_`, a `_` in front when
/// the provider wants a letter first, and at most `max` characters.
fn sanitize(provider: Provider, name: &str, max: usize) -> String {
    let mut out: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if out.is_empty()
        || (provider == Provider::Google && !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    {
        out.insert(0, '_');
    }
    out.truncate(max);
    out
}

/// FNV-1a of the (server, tool) pair, as 8 hex digits: stable across runs and platforms.
fn short_hash(server: &str, tool: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in server.bytes().chain([0]).chain(tool.bytes()) {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// One name per tool, in the tools' order: the MCP name when it is valid and no other server
/// offers the same name; else `server__tool` sanitized; else (too long or still taken) a
/// truncated form ending in a hash of the pair.
pub(super) fn assign(provider: Provider, tools: &[ServerTool]) -> Vec<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in tools {
        *counts.entry(entry.tool.name.as_str()).or_default() += 1;
    }
    let plain_ok =
        |entry: &ServerTool| counts[entry.tool.name.as_str()] == 1 && is_valid(provider, &entry.tool.name);
    // Names kept as they are are reserved first, so a qualified name never takes one.
    let mut taken: BTreeSet<String> =
        tools.iter().filter(|e| plain_ok(e)).map(|e| e.tool.name.clone()).collect();
    tools
        .iter()
        .map(|entry| {
            if plain_ok(entry) {
                return entry.tool.name.clone();
            }
            let joined = format!("{}__{}", entry.server, entry.tool.name);
            let qualified = sanitize(provider, &joined, usize::MAX);
            let name = if qualified.len() <= MAX_NAME && !taken.contains(&qualified) {
                qualified
            } else {
                let hash = short_hash(&entry.server, &entry.tool.name);
                let mut candidate = sanitize(provider, &joined, MAX_NAME - hash.len() - 1);
                candidate.push('_');
                candidate.push_str(&hash);
                // A collision of the hashed form too: count up until free (deterministic).
                let mut n = 2usize;
                let base = candidate.clone();
                while taken.contains(&candidate) {
                    let suffix = format!("_{n}");
                    candidate = base.clone();
                    candidate.truncate(MAX_NAME - suffix.len());
                    candidate.push_str(&suffix);
                    n += 1;
                }
                candidate
            };
            taken.insert(name.clone());
            name
        })
        .collect()
}
