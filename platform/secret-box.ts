// AES-256-GCM for every secret the service keeps (tokens, refresh tokens, client secrets, PKCE
// verifiers). Only ciphertext travels through Temporal and MongoDB; the key never leaves config.
// The associated data binds a ciphertext to its connector and purpose, so a value copied from one
// connector or field to another fails to decrypt instead of being used.
import crypto from 'node:crypto';

const VERSION = 'v1';
/**
 * GCM accepts tags cut down to 4 bytes unless told otherwise, and a cut tag is that much easier
 * to forge (NIST SP 800-38D, appendix C); we always write 16, so we only ever accept 16.
 */
const TAG_BYTES = 16;

import type { Ciphertext } from '../contract/ciphertext';

export type { Ciphertext };

export class SecretBox {
  private readonly key: Buffer;
  /** A key of its own for tags (HKDF of the sealing key): one key never serves two algorithms. */
  private readonly tagKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.key = key;
    this.tagKey = Buffer.from(crypto.hkdfSync('sha256', key, Buffer.alloc(0), 'connector-registry tag v1', 32));
  }

  /**
   * A MAC of `text` bound to `context` (128 bits, base64url): the same every time, so that an id
   * that carries it reads the same in every answer, and unforgeable without the key.
   */
  tag(text: string, context: string): string {
    // As JSON: no context and text can be read as another pair.
    return crypto.createHmac('sha256', this.tagKey).update(JSON.stringify([context, text])).digest().subarray(0, 16).toString('base64url');
  }

  seal(plaintext: string, context: string): Ciphertext {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return `${VERSION}.${parts.join('.')}` as Ciphertext;
  }

  open(sealed: string, context: string): string {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
    const authTag = Buffer.from(tag, 'base64url');
    if (authTag.length !== TAG_BYTES) throw new Error('not a sealed secret (its tag is not 16 bytes)');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Accepts a key as 64 hex digits or as base64/base64url of 32 bytes. */
export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64url');
  if (key.length !== 32) throw new Error('must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/** The associated data for a secret: which connector and which field it belongs to. */
export const secretContext = (connectorId: string, purpose: string): string => `${connectorId}/${purpose}`;
