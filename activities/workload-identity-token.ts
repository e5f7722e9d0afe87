// The service's own workload identity token (SEP-1933): a Kubernetes projected service-account
// token, or any file the operator names (CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE). Whoever writes
// the file (the kubelet) replaces the token before it expires, so it is read anew for every token
// request and kept nowhere: not in history, the database or a log. Errors name the file and what
// is wrong with it, never its content.
import { readFile } from 'node:fs/promises';
import { decodeJwt } from 'jose';
import { FAILURE, TypedFailure } from '../contract/failures';

/**
 * Transient: whatever writes the file may put it right (the kubelet renews a projected token), so
 * the activity is retried, and a renewal keeps trying as it does while a server is unreachable.
 */
export class WorkloadTokenError extends TypedFailure {
  readonly failure = FAILURE.transient;
}

/** The token as the file holds it now; `now` (epoch ms) only for the expiry check. */
export async function readWorkloadToken(file: string | null | undefined, now = Date.now()): Promise<string> {
  if (!file) throw new WorkloadTokenError('this deployment names no workload identity token file (CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE)');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new WorkloadTokenError(`the workload identity token file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const token = text.trim();
  let exp: number | undefined;
  try {
    exp = decodeJwt(token).exp;
  } catch {
    throw new WorkloadTokenError(`the workload identity token file ${file} holds no JWT`);
  }
  // An expired token would only be refused by the authorization server: said here instead, with
  // the likelier cause, and the credential is not sent anywhere.
  if (exp !== undefined && exp * 1000 <= now) {
    throw new WorkloadTokenError(`the workload identity token in ${file} expired at ${new Date(exp * 1000).toISOString()}: whatever writes the file stopped renewing it`);
  }
  return token;
}
