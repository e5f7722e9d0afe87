// Loopback host names and addresses, judged from the text alone (the contract runs in the
// workflow sandbox, without node:net): only this machine answers there, so plain http to them
// cannot hand a credential to the network.

/** localhost, a name under .localhost, 127.0.0.0/8 or ::1, as URL.hostname gives them. */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return true;
  return bare === '::1';
}
