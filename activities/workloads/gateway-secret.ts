// A workload's gateway secret: 32 random bytes, base64url (43 characters, header-safe).
import { randomBytes } from 'node:crypto';

export function newGatewaySecret(): string {
  return randomBytes(32).toString('base64url');
}
