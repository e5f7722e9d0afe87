// DATA_DIR holds the embedded stack's databases and, unless CONNECTOR__ENCRYPTION_KEY is set, the
// encryption key. Local stdio servers run as other uids on this machine: to them DATA_DIR is
// closed (0700) and the key file the owner's alone (0600), whatever mode an older version or an
// operator's umask left them with (mkdir's mode applies only to a directory it creates).
import fs from 'node:fs';

export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  closeTo(dir, 0o700);
}

export function ensurePrivateFile(file: string): void {
  closeTo(file, 0o600);
}

function closeTo(path: string, mode: number): void {
  try {
    fs.chmodSync(path, mode);
  } catch (error) {
    // Another user's (a volume mounted as root, say): who owns it may also swap the key.
    throw new Error(`${path} must belong to the user the service runs as, to be made private (mode ${mode.toString(8)}): ${(error as Error).message}`);
  }
}
