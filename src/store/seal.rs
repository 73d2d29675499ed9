//! Sealed run records: AES-256-GCM under the first of `keys`, opened by any of them (key
//! rotation). The associated data binds the run id, the version the record is written as and
//! a scope, so a record opens only where and as what it was sealed; nothing else opens.

use crate::error::{CodeModeError, ErrorCode};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

/// The first bytes of every sealed record (format version 1).
const MAGIC: &[u8; 4] = b"CMR1";
const NONCE_BYTES: usize = 12;
const TAG_BYTES: usize = 16;
pub const KEY_BYTES: usize = 32;
pub const MAX_KEY_ID_BYTES: usize = 64;
/// Separates this use of a key from any other the host may make of it.
const CONTEXT: &[u8] = b"codemode-native run record v1\0";

/// One configured key: `id` is stored in the clear in each record it seals.
pub struct SealKey {
    pub id: String,
    pub key: Vec<u8>,
}

impl std::fmt::Debug for SealKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SealKey {{ id: {:?}, key: <redacted> }}", self.id)
    }
}

/// Where a record belongs: it opens only under the same three values.
#[derive(Clone, Copy, Debug)]
pub struct RecordBinding<'a> {
    pub run_id: &'a str,
    /// The store version the record is written as (`store::next_version`).
    pub version: u64,
    /// The session scope (`sessionId`/`sessionKey`/`agentId`) the run belongs to.
    pub scope: &'a str,
}

/// Seals with the first key, opens with whichever key a record names.
pub struct Sealer {
    keys: Vec<(String, Aes256Gcm)>,
}

impl Sealer {
    /// Refuses no keys, a key that is not 32 bytes, and an empty, long or repeated id.
    pub fn new(keys: &[SealKey]) -> Result<Self, CodeModeError> {
        if keys.is_empty() {
            return Err(CodeModeError::invalid_input(
                "keys must hold at least one key.",
            ));
        }
        let mut ciphers: Vec<(String, Aes256Gcm)> = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            if key.id.is_empty() || key.id.len() > MAX_KEY_ID_BYTES {
                return Err(CodeModeError::invalid_input(format!(
                    "keys[{i}].id must be a string of 1 to {MAX_KEY_ID_BYTES} bytes."
                )));
            }
            if let Some(j) = ciphers.iter().position(|(id, _)| *id == key.id) {
                return Err(CodeModeError::invalid_input(format!(
                    "keys[{i}].id \"{}\" is also the id of keys[{j}].",
                    key.id
                )));
            }
            let cipher = Aes256Gcm::new_from_slice(&key.key).map_err(|_| {
                CodeModeError::invalid_input(format!(
                    "keys[{i}].key must be {KEY_BYTES} bytes; it is {}.",
                    key.key.len()
                ))
            })?;
            ciphers.push((key.id.clone(), cipher));
        }
        Ok(Sealer { keys: ciphers })
    }

    /// `plaintext` sealed for `binding` under the first key, with a fresh random nonce.
    pub fn seal(
        &self,
        binding: &RecordBinding,
        plaintext: &[u8],
    ) -> Result<Vec<u8>, CodeModeError> {
        let Some((id, cipher)) = self.keys.first() else {
            return Err(CodeModeError::internal("a sealer without keys"));
        };
        let mut nonce = [0u8; NONCE_BYTES];
        getrandom::fill(&mut nonce)
            .map_err(|e| CodeModeError::internal(format!("no random nonce: {e}")))?;
        let mut record = header(id);
        let aad = associated_data(binding, &record);
        let sealed = cipher
            .encrypt(
                &Nonce::from(nonce),
                Payload {
                    msg: plaintext,
                    aad: &aad,
                },
            )
            .map_err(|_| CodeModeError::internal("AES-GCM refused to seal"))?;
        record.reserve(NONCE_BYTES + sealed.len());
        record.extend_from_slice(&nonce);
        record.extend_from_slice(&sealed);
        Ok(record)
    }

    /// The plaintext of a record sealed for exactly `binding`; `record_refused` otherwise.
    pub fn open(&self, binding: &RecordBinding, record: &[u8]) -> Result<Vec<u8>, CodeModeError> {
        let (id, header_len) = parse_header(record)?;
        let Some((_, cipher)) = self.keys.iter().find(|(k, _)| k.as_bytes() == id) else {
            return Err(refused(format!(
                "run record was sealed under key \"{}\", which is not among the configured keys.",
                String::from_utf8_lossy(id)
            )));
        };
        let rest = &record[header_len..];
        if rest.len() < NONCE_BYTES + TAG_BYTES {
            return Err(truncated());
        }
        let (nonce, sealed) = rest.split_at(NONCE_BYTES);
        let nonce: [u8; NONCE_BYTES] = nonce.try_into().map_err(|_| truncated())?;
        let aad = associated_data(binding, &record[..header_len]);
        cipher
            .decrypt(&Nonce::from(nonce), Payload { msg: sealed, aad: &aad })
            .map_err(|_| {
                refused("run record does not open: it was altered, or belongs to another run, version or scope.")
            })
    }
}

/// Bytes a sealed record adds to its plaintext under a key id of `key_id_len` bytes.
pub fn overhead(key_id_len: usize) -> usize {
    MAGIC.len() + 1 + key_id_len + NONCE_BYTES + TAG_BYTES
}

fn header(key_id: &str) -> Vec<u8> {
    let mut header = Vec::with_capacity(MAGIC.len() + 1 + key_id.len());
    header.extend_from_slice(MAGIC);
    // Ids are at most MAX_KEY_ID_BYTES (checked in `Sealer::new`), so the length fits a byte.
    header.push(key_id.len() as u8);
    header.extend_from_slice(key_id.as_bytes());
    header
}

/// The key id a record names and the length of its header.
fn parse_header(record: &[u8]) -> Result<(&[u8], usize), CodeModeError> {
    if record.len() < MAGIC.len() + 1 || &record[..MAGIC.len()] != MAGIC {
        return Err(truncated());
    }
    let id_len = record[MAGIC.len()] as usize;
    let header_len = MAGIC.len() + 1 + id_len;
    if id_len == 0 || id_len > MAX_KEY_ID_BYTES || record.len() < header_len {
        return Err(truncated());
    }
    Ok((&record[MAGIC.len() + 1..header_len], header_len))
}

/// Length-prefixed fields, so no two bindings share an encoding; the header is included
/// so that the key id a record names is authenticated too.
fn associated_data(binding: &RecordBinding, header: &[u8]) -> Vec<u8> {
    let mut aad = Vec::with_capacity(
        CONTEXT.len() + 24 + binding.run_id.len() + binding.scope.len() + header.len(),
    );
    aad.extend_from_slice(CONTEXT);
    aad.extend_from_slice(&(binding.run_id.len() as u64).to_be_bytes());
    aad.extend_from_slice(binding.run_id.as_bytes());
    aad.extend_from_slice(&binding.version.to_be_bytes());
    aad.extend_from_slice(&(binding.scope.len() as u64).to_be_bytes());
    aad.extend_from_slice(binding.scope.as_bytes());
    aad.extend_from_slice(header);
    aad
}

fn refused(message: impl Into<String>) -> CodeModeError {
    CodeModeError::new(ErrorCode::RecordRefused, message)
}

fn truncated() -> CodeModeError {
    refused("run record is truncated or is not a sealed run record.")
}

#[cfg(test)]
#[path = "seal_tests.rs"]
mod tests;
