// An enterprise-managed connect's identity assertion may be the caller's own sign-in at the
// platform's identity provider (CONNECTOR__AUTH_ISSUER: the console sends the ID token it signed in
// with). The connector then acts as that user wherever the assertion is exchanged, so a token of
// that issuer is verified here and must name the caller: nobody connects as another user with a
// sign-in token they got hold of. A token of another issuer is the platform's to vouch for; the
// enterprise identity provider verifies it at the exchange.
import { ProblemError } from '../contract/problem';
import type { ConnectRequest } from '../contract/schemas';
import { IdentityProviderUnavailable, type Caller } from '../callers/caller';
import type { Authenticator } from '../callers/authenticator';
import { InvalidSignIn } from '../callers/jwt-verifier';

export type SignInVerifier = Pick<Authenticator, 'signInOwner'>;

/** Refuses (422, 403) an id_token of the platform's identity provider that does not verify or is not the caller's. */
export async function checkSignInAssertion(body: ConnectRequest, caller: Caller, verifier: SignInVerifier | undefined): Promise<void> {
  if (body.grant !== 'enterprise_managed' || !body.id_token || !verifier) return;
  let owner: string | null;
  try {
    owner = await verifier.signInOwner(body.id_token);
  } catch (err) {
    if (err instanceof IdentityProviderUnavailable) throw new ProblemError(503, 'the identity provider cannot be reached; try again');
    if (!(err instanceof InvalidSignIn)) throw err;
    throw new ProblemError(422, 'the connect request is invalid', undefined, [
      { path: 'id_token', message: `an ID token of the platform's identity provider that ${err.message}` },
    ]);
  }
  if (owner !== null && owner !== caller.subject) {
    throw new ProblemError(403, "the id_token is another user's sign-in at the platform's identity provider: connect with your own", 'forbidden');
  }
}
