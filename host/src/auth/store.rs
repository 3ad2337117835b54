//! [`TokenStore`]: where a host keeps each server's OAuth record ([`StoredAuth`]) between
//! runs, in memory ([`MemoryTokenStore`]) or in a directory of files ([`FileTokenStore`]).

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use mcpwire_core::oauth::{StoredAuth, STORED_VERSION};
use sha2::{Digest, Sha256};

/// The largest record file [`FileTokenStore::load`] reads (1 MiB).
pub const MAX_RECORD_BYTES: u64 = 1 << 20;

/// Why a [`TokenStore`] could not load, save or remove a record.
#[derive(Debug)]
#[non_exhaustive]
pub enum TokenStoreError {
    /// Reading or writing the store failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// The record is not a readable [`StoredAuth`] (bad JSON, missing fields, too large).
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The record was written in a format version this client does not know.
    UnknownVersion {
        /// The file.
        path: PathBuf,
        /// Its version.
        version: u64,
    },
    /// The record under this server's key names another server.
    WrongServer {
        /// The file.
        path: PathBuf,
    },
    /// No directory to keep records in could be found (the user has no home directory).
    NoDirectory,
}

impl fmt::Display for TokenStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "token store {}: {source}", path.display()),
            Self::Corrupt { path, reason } => {
                write!(f, "token store {}: unreadable record: {reason}", path.display())
            }
            Self::UnknownVersion { path, version } => {
                write!(f, "token store {}: record version {version} is not {STORED_VERSION}", path.display())
            }
            Self::WrongServer { path } => {
                write!(f, "token store {}: the record belongs to another server", path.display())
            }
            Self::NoDirectory => {
                f.write_str("token store: no configuration directory (no home directory) to keep records in")
            }
        }
    }
}

impl std::error::Error for TokenStoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Keeps OAuth records ([`StoredAuth`], secrets in clear) across runs, keyed by the canonical
/// MCP server URL ([`StoredAuth::server`]). The client loads a server's record when it is
/// built and saves every [`mcpwire_core::Event::AuthorizationSaved`]. A record holds the grant in
/// use and those set aside for the server's earlier authorization servers, keyed by issuer
/// ([`StoredAuth::set_aside`]); the client saves the record as soon as the authorization
/// server changes, and each save replaces the whole record, so a store that keeps records
/// whole never holds a retired token as the server's own. Implementations are called
/// where the server's events are delivered (one at a time per server, outside the engine lock):
/// keep them quick (a keychain or a small file).
pub trait TokenStore: Send + Sync {
    /// The record for `server` (a canonical server URL), if one is kept.
    fn load(&self, server: &str) -> Result<Option<StoredAuth>, TokenStoreError>;
    /// Keeps `record` under `record.server`, replacing any earlier one.
    fn save(&self, record: &StoredAuth) -> Result<(), TokenStoreError>;
    /// Forgets the record for `server` (no error when there is none).
    fn remove(&self, server: &str) -> Result<(), TokenStoreError>;
}

/// Records kept in memory for the life of the process (tests, short-lived tools).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    records: Mutex<BTreeMap<String, StoredAuth>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many records are kept.
    pub fn len(&self) -> usize {
        crate::lock(&self.records).len()
    }

    /// Whether no record is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, server: &str) -> Result<Option<StoredAuth>, TokenStoreError> {
        Ok(crate::lock(&self.records).get(server).cloned())
    }

    fn save(&self, record: &StoredAuth) -> Result<(), TokenStoreError> {
        crate::lock(&self.records).insert(record.server.clone(), record.clone());
        Ok(())
    }

    fn remove(&self, server: &str) -> Result<(), TokenStoreError> {
        crate::lock(&self.records).remove(server);
        Ok(())
    }
}

/// Records kept as files in a directory: one JSON file per server, named by the hex SHA-256
/// of its canonical URL (`<sha256>.json`). The directory is created `0700` and each file
/// `0600` on Unix; a save writes a temporary file and renames it over the old one, so a
/// reader never sees half a record. A file that does not parse, is over [`MAX_RECORD_BYTES`]
/// or has an unknown version is a typed error for [`TokenStore::load`], never a panic.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    dir: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl FileTokenStore {
    /// A store in `dir` (created on the first save).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// A store in [`FileTokenStore::default_dir`].
    pub fn in_default_dir() -> Result<Self, TokenStoreError> {
        Self::default_dir().map(Self::new).ok_or(TokenStoreError::NoDirectory)
    }

    /// `mcp/tokens` in the operating system's per-user configuration directory (the `dirs`
    /// crate's `config_dir`): `$XDG_CONFIG_HOME` (when absolute) or `~/.config` on Linux and the
    /// BSDs, `~/Library/Application Support` on macOS, `%APPDATA%` (the roaming profile) on
    /// Windows. `None` when there is no home directory.
    pub fn default_dir() -> Option<PathBuf> {
        dirs::config_dir().map(|config| config.join("mcp").join("tokens"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file that holds `server`'s record.
    pub fn path_for(&self, server: &str) -> PathBuf {
        let digest = Sha256::digest(server.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.json"))
    }

    fn io(path: &Path) -> impl FnOnce(io::Error) -> TokenStoreError + '_ {
        move |source| TokenStoreError::Io { path: path.to_owned(), source }
    }

    fn create_dir(&self) -> Result<(), TokenStoreError> {
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&self.dir).map_err(Self::io(&self.dir))
    }

    /// Writes `bytes` to a new temporary file next to `path` (mode `0600`), then renames it
    /// over `path`.
    fn write_atomically(&self, path: &Path, bytes: &[u8]) -> Result<(), TokenStoreError> {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("record");
        let temp = self.dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options.open(&temp).and_then(|mut file| {
            file.write_all(bytes)?;
            file.sync_all()
        });
        let outcome = written.and_then(|()| fs::rename(&temp, path));
        if outcome.is_err() {
            let _ = fs::remove_file(&temp);
        }
        outcome.map_err(Self::io(path))
    }

    fn read_bounded(path: &Path) -> Result<Option<Vec<u8>>, TokenStoreError> {
        let file = match fs::File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Self::io(path)(e)),
        };
        let mut bytes = Vec::new();
        file.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes).map_err(Self::io(path))?;
        if bytes.len() as u64 > MAX_RECORD_BYTES {
            return Err(TokenStoreError::Corrupt {
                path: path.to_owned(),
                reason: format!("over {MAX_RECORD_BYTES} bytes"),
            });
        }
        Ok(Some(bytes))
    }
}

/// Decodes a record file's bytes: the version first (so a newer format is reported as such),
/// then the whole record.
fn decode(path: &Path, bytes: &[u8]) -> Result<StoredAuth, TokenStoreError> {
    let corrupt = |reason: String| TokenStoreError::Corrupt { path: path.to_owned(), reason };
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| corrupt(e.to_string()))?;
    let version = value.get("version").and_then(serde_json::Value::as_u64);
    match version {
        Some(v) if v == u64::from(STORED_VERSION) => {}
        Some(version) => return Err(TokenStoreError::UnknownVersion { path: path.to_owned(), version }),
        None => return Err(corrupt("no version".into())),
    }
    serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))
}

impl TokenStore for FileTokenStore {
    fn load(&self, server: &str) -> Result<Option<StoredAuth>, TokenStoreError> {
        let path = self.path_for(server);
        let Some(bytes) = Self::read_bounded(&path)? else { return Ok(None) };
        let record = decode(&path, &bytes)?;
        if record.server != server {
            return Err(TokenStoreError::WrongServer { path });
        }
        Ok(Some(record))
    }

    fn save(&self, record: &StoredAuth) -> Result<(), TokenStoreError> {
        let path = self.path_for(&record.server);
        let bytes = serde_json::to_vec_pretty(record)
            .map_err(|e| TokenStoreError::Corrupt { path: path.clone(), reason: e.to_string() })?;
        self.create_dir()?;
        self.write_atomically(&path, &bytes)
    }

    fn remove(&self, server: &str) -> Result<(), TokenStoreError> {
        let path = self.path_for(server);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(Self::io(&path)(e)),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpwire_core::oauth::Secret;

    /// A record with tokens (built from JSON, so fields the core adds with defaults do not
    /// break it).
    fn record(server: &str) -> StoredAuth {
        serde_json::from_value(serde_json::json!({
            "version": STORED_VERSION,
            "server": server,
            "resource_metadata": null,
            "auth_server": null,
            "client": null,
            "registrations": [],
            "tokens": {
                "access_token": "at-secret",
                "expires_at_unix": 1_900_000_000u64,
                "refresh_token": "rt-secret",
                "scopes": ["files:read"],
                "issuer": "https://auth.example.com",
                "resource": server,
            },
        }))
        .unwrap()
    }

    fn temp_dir(tag: &str) -> PathBuf {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcp-token-store-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn memory_round_trip() {
        let store = MemoryTokenStore::new();
        assert!(store.load("https://a.example/mcp").unwrap().is_none());
        store.save(&record("https://a.example/mcp")).unwrap();
        assert_eq!(store.load("https://a.example/mcp").unwrap(), Some(record("https://a.example/mcp")));
        assert!(store.load("https://b.example/mcp").unwrap().is_none());
        store.remove("https://a.example/mcp").unwrap();
        assert!(store.is_empty());
    }

    #[test]
    fn file_round_trip_and_replace() {
        let dir = temp_dir("round-trip").join("nested");
        let store = FileTokenStore::new(&dir);
        let server = "https://mcp.example.com/mcp";
        assert!(store.load(server).unwrap().is_none(), "nothing saved yet, no directory either");
        store.save(&record(server)).unwrap();
        assert_eq!(store.load(server).unwrap(), Some(record(server)));
        let mut newer = record(server);
        newer.tokens.as_mut().unwrap().access_token = Secret::new("at-2");
        store.save(&newer).unwrap();
        assert_eq!(store.load(server).unwrap(), Some(newer));
        let name = store.path_for(server).file_name().unwrap().to_str().unwrap().to_owned();
        assert_eq!(name.len(), 64 + 5, "hex SHA-256 and .json: {name}");
        let leftovers: Vec<_> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind: {leftovers:?}");
        store.remove(server).unwrap();
        store.remove(server).unwrap();
        assert!(store.load(server).unwrap().is_none());
        let _ = fs::remove_dir_all(dir.parent().unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn file_permissions_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp_dir("perms");
        let store = FileTokenStore::new(&dir);
        store.save(&record("https://p.example/mcp")).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&store.path_for("https://p.example/mcp")), 0o600);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn corrupt_records_are_typed_errors() {
        let dir = temp_dir("corrupt");
        let store = FileTokenStore::new(&dir);
        let server = "https://c.example/mcp";
        store.save(&record(server)).unwrap();
        let path = store.path_for(server);
        type Check = fn(&TokenStoreError) -> bool;
        let cases: [(&[u8], Check); 5] = [
            (b"{not json", |e| matches!(e, TokenStoreError::Corrupt { .. })),
            (b"{\"version\": 1}", |e| matches!(e, TokenStoreError::Corrupt { .. })),
            (b"{\"server\": \"x\"}", |e| matches!(e, TokenStoreError::Corrupt { .. })),
            (b"{\"version\": 99, \"whatever\": true}", |e| {
                matches!(e, TokenStoreError::UnknownVersion { version: 99, .. })
            }),
            (b"[1, 2, 3]", |e| matches!(e, TokenStoreError::Corrupt { .. })),
        ];
        for (bytes, expected) in cases {
            fs::write(&path, bytes).unwrap();
            let err = store.load(server).unwrap_err();
            assert!(expected(&err), "{err}");
            assert!(!err.to_string().is_empty());
        }
        fs::write(&path, vec![b' '; MAX_RECORD_BYTES as usize + 10]).unwrap();
        assert!(matches!(store.load(server), Err(TokenStoreError::Corrupt { .. })), "oversize");
        let other = serde_json::to_vec(&record("https://other.example/mcp")).unwrap();
        fs::write(&path, other).unwrap();
        assert!(matches!(store.load(server), Err(TokenStoreError::WrongServer { .. })));
        store.save(&record(server)).unwrap();
        assert_eq!(store.load(server).unwrap(), Some(record(server)), "a save replaces a corrupt file");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_record_written_before_set_aside_grants_loads() {
        // The exact shape of the previous release (same version, no `set_aside`).
        let old = r#"{
          "version": 1,
          "server": "https://o.example/mcp",
          "resource_metadata": null,
          "auth_server": null,
          "client": null,
          "registrations": [],
          "tokens": {
            "access_token": "at-old",
            "token_type": "Bearer",
            "expires_at_unix": 1900000000,
            "refresh_token": "rt-old",
            "scopes": [],
            "issuer": "https://auth.example.com",
            "resource": "https://o.example/mcp"
          }
        }"#;
        let dir = temp_dir("old-format");
        let store = FileTokenStore::new(&dir);
        let server = "https://o.example/mcp";
        store.save(&record(server)).unwrap();
        fs::write(store.path_for(server), old).unwrap();
        let loaded = store.load(server).unwrap().expect("the old record");
        assert!(loaded.set_aside.is_empty());
        assert_eq!(loaded.tokens.as_ref().map(|t| t.access_token.expose()), Some("at-old"));
        store.save(&loaded).unwrap();
        let written = fs::read_to_string(store.path_for(server)).unwrap();
        assert!(!written.contains("set_aside"), "nothing set aside, the old shape is kept: {written}");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn unwritable_directory_is_an_io_error() {
        let dir = temp_dir("blocked");
        fs::write(&dir, b"a file where the directory should be").unwrap();
        let store = FileTokenStore::new(dir.join("tokens"));
        let err = store.save(&record("https://d.example/mcp")).unwrap_err();
        assert!(matches!(err, TokenStoreError::Io { .. }), "{err}");
        let _ = fs::remove_file(&dir);
    }

    #[test]
    fn default_dir_is_the_os_config_dir() {
        let dir = FileTokenStore::default_dir().expect("the test user has a home directory");
        assert!(dir.is_absolute() && dir.ends_with("mcp/tokens"), "{}", dir.display());
        #[cfg(target_os = "linux")]
        match std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from).filter(|p| p.is_absolute()) {
            Some(xdg) => assert_eq!(dir, xdg.join("mcp/tokens")),
            None => assert!(dir.ends_with(".config/mcp/tokens"), "{}", dir.display()),
        }
    }
}
