// The secret that lets only the proxy drive a managed stdio workload's gateway. Each workload's
// runtime generates one; the workflow keeps it sealed under GATEWAY_SECRET_FIELD, and the proxy
// sends it in GATEWAY_SECRET_HEADER, a header its allow-list never takes from a caller.
export const GATEWAY_SECRET_HEADER = 'x-connector-gateway-secret';

/** The field named in the ciphertext's associated data (secretContext(connectorId, field)). */
export const GATEWAY_SECRET_FIELD = 'gateway_secret';
