//! The TypeScript and Python SDK clients in `compare` (`--sdks`): `bench/kit/ts/ts-bench.mjs`
//! (the TypeScript SDK v1, `@modelcontextprotocol/sdk`, and v2, `@modelcontextprotocol/client`)
//! on the peers' Node 22, and `bench/kit/python/py-bench.py` (the official `mcp` SDK's
//! `ClientSession` and FastMCP's `Client`) on the peers' venv. The peers are the ones
//! `bash peers/setup.sh .peers` installs, found through `$MCP_PEERS` (else `./.peers`); a missing
//! piece stops the run with the command that installs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Config;

/// The labels of the SDK clients, in `compare`'s tables.
pub const LABELS: [&str; 4] = ["ts-v1", "ts-v2", "py-mcp", "fastmcp"];

/// Where the SDK clients' runtimes are, and how many calls they make (they are 10-100x slower
/// than the Rust clients, so their N is smaller; the tables compare per-call figures).
#[derive(Debug, Clone)]
pub struct Sdks {
    /// The peers directory (`$MCP_PEERS`).
    pub peers: PathBuf,
    /// Sequential calls per run.
    pub calls: usize,
    /// Calls per concurrent caller.
    pub caller_calls: usize,
    /// Untimed calls before the timed ones (the JIT's and the interpreter's warm-up).
    pub warmup: usize,
}

const INSTALL: &str = "install them from the repository root with `bash peers/setup.sh .peers` \
                       and export MCP_PEERS=$PWD/.peers";

impl Sdks {
    /// The peers from `$MCP_PEERS`, else `.peers` in the current directory.
    pub fn peers_dir() -> PathBuf {
        std::env::var_os("MCP_PEERS").map_or_else(|| PathBuf::from(".peers"), PathBuf::from)
    }

    fn node(&self) -> PathBuf {
        self.peers.join("bin/node22")
    }

    fn python(&self) -> PathBuf {
        self.peers.join("venv/bin/python")
    }

    fn script(name: &str) -> String {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("kit").join(name).display().to_string()
    }

    /// Checks that every SDK client can run: the runtimes, the packages, the scripts.
    pub fn check(&self) -> Result<(), String> {
        let packages = self.peers.join("node/node_modules/@modelcontextprotocol");
        for path in [
            self.node(),
            self.python(),
            packages.join("sdk/package.json"),
            packages.join("client/package.json"),
        ] {
            if !path.exists() {
                return Err(format!("--sdks: {} is missing: {INSTALL}", path.display()));
            }
        }
        for script in ["ts/ts-bench.mjs", "python/py-bench.py"] {
            let path = Self::script(script);
            if !Path::new(&path).exists() {
                return Err(format!("--sdks: {path} is missing"));
            }
        }
        let imports = Command::new(self.python())
            .args(["-c", "import anyio, mcp, fastmcp"])
            .stdout(Stdio::null())
            .output()
            .map_err(|e| format!("--sdks: cannot run {}: {e}", self.python().display()))?;
        if !imports.status.success() {
            return Err(format!(
                "--sdks: the peers' venv cannot import mcp and fastmcp ({}): {INSTALL}",
                String::from_utf8_lossy(&imports.stderr).trim()
            ));
        }
        Ok(())
    }

    /// The SDK clients' configurations on `transport` (server argv for stdio, URL for HTTP).
    /// `n` = 0 is the connect phase (no warm-up).
    pub(super) fn configs(&self, transport: &'static str, n: usize, target: &[String]) -> Vec<Config> {
        let warmup = if n == 0 { 0 } else { self.warmup };
        let env = vec![("MCP_PEERS", self.peers.display().to_string()), ("WARMUP", warmup.to_string())];
        let node = self.node().display().to_string();
        let python = self.python().display().to_string();
        let head = |label: &str| -> Vec<String> {
            match label {
                "ts-v1" | "ts-v2" => vec![
                    node.clone(),
                    // Lets the script resolve the SDKs from the peers' node_modules.
                    "--experimental-import-meta-resolve".into(),
                    Self::script("ts/ts-bench.mjs"),
                    label.trim_start_matches("ts-").into(),
                ],
                "py-mcp" => vec![python.clone(), Self::script("python/py-bench.py"), "mcp".into()],
                _ => vec![python.clone(), Self::script("python/py-bench.py"), "fastmcp".into()],
            }
        };
        LABELS
            .iter()
            .map(|label| {
                let mut argv = head(label);
                argv.extend([transport.to_owned(), n.to_string()]);
                argv.extend_from_slice(target);
                Config { label: (*label).to_owned(), transport, argv, env: env.clone() }
            })
            .collect()
    }
}
