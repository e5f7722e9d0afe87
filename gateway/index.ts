// The gateway's public API, for the service's local runtime (in-process) and for tests.
export {
  startGateway, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_FIRST_REQUEST_TIMEOUT_MS, GATEWAY_SERVER_LIMITS, type Gateway, type GatewayOptions,
} from './start-gateway';
export { ProcessSource, type ProcessSourceOptions } from './process-source';
export { AttachSource, type AttachSourceOptions } from './attach-source';
export type { StdioExit, StdioSource } from './stdio-source';
export type { GatewayHealth } from './http-handler';
export type { SessionSummary } from './router';
