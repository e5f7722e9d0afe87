// Where a connector's token (given, or from OAuth) may travel: over https anywhere, and over
// plain http only to this host (loopback) or to a network the operator trusts: an address in
// CONNECTOR__ALLOWED_PRIVATE_NETWORKS, or any private address while private networks are not
// blocked. Anywhere else a plain-http request hands the token to every network on the way.
//
// An address is judged as it is, not by an IPv4 address it embeds: a NAT64 or 6to4 address of
// 10.0.0.1 crosses a translator or a tunnel to get there, so it is not a private hop.
import dns from 'node:dns';
import net from 'node:net';
import { isInNetworks, isPrivateAddress, type AddressPolicy } from './address-guard';

/** Why a token may not be sent to `address` (an IP address) over `protocol`, or null when it may. */
export function tokenTransportRefusal(protocol: string, address: string, policy: AddressPolicy): string | null {
  if (protocol === 'https:') return null;
  if (protocol !== 'http:') return `a token is only sent over https or http, not ${protocol}`;
  if (isInNetworks(address, policy.allowedPrivateNetworks)) return null;
  if (isInNetworks(address, LOOPBACK)) return null;
  if (!policy.blockPrivateNetworks && isPrivateAddress(address)) return null;
  return `a token is not sent over plain http to ${address}: use https, or list its network in CONNECTOR__ALLOWED_PRIVATE_NETWORKS`;
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

/** The detail of a refusal by this rule, the same from the API and from the OAuth flow. */
export const clearTextRefusal = (why: string): string => `The connector's token would travel in the clear: ${why}.`;

/**
 * The rule applied to a URL: a plain-http host name is resolved (only then), and every address
 * it has must pass. A name that does not resolve now is refused: it might resolve anywhere later.
 */
export async function urlTokenTransportRefusal(url: URL, policy: AddressPolicy): Promise<string | null> {
  if (url.protocol === 'https:') return null;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = net.isIP(host)
    ? [host]
    : await dns.promises.lookup(host, { all: true, verbatim: true }).then((found) => found.map((a) => a.address), () => null);
  if (!addresses?.length) return `a token is not sent over plain http to ${host}, whose addresses could not be resolved to check where it would go`;
  for (const address of addresses) {
    const why = tokenTransportRefusal(url.protocol, address, policy);
    if (why) return why;
  }
  return null;
}
