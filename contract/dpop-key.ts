// The purpose a connector's DPoP private key is sealed with (platform/secret-box.ts): the OAuth
// activities seal it, the probe and the proxy open it, with the same associated data.
export const DPOP_KEY_PURPOSE = 'dpop_key';
