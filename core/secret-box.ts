// AES-256-GCM for every secret the service keeps (tokens, refresh tokens, client secrets, PKCE
// verifiers). Only ciphertext travels through Temporal and MongoDB; the key never leaves config.
// The associated data binds a ciphertext to its connector and purpose, so a value copied from one
// connector or field to another fails to decrypt instead of being used.
import crypto from 'node:crypto';

const VERSION = 'v1';

export type Ciphertext = string & { readonly __brand: 'Ciphertext' };

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.key = key;
  }

  seal(plaintext: string, context: string): Ciphertext {
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'));
    return `${VERSION}.${parts.join('.')}` as Ciphertext;
  }

  open(sealed: string, context: string): string {
    const [version, iv, body, tag] = sealed.split('.');
    if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('not a sealed secret');
    const decipher = crypto.createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
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
