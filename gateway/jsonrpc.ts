// Small JSON-RPC helpers shared by both routing directions.
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type ProgressToken,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** Map key for a request id that keeps 1 and "1" apart. */
export function idKey(id: RequestId): string {
  return `${typeof id}:${String(id)}`;
}

/** A result or an error (the SDK calls both a response). */
export function isAnswer(message: JSONRPCMessage): message is JSONRPCResponse {
  return isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
}

export function errorAnswer(id: RequestId, code: number, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** The error every request gets once the stdio server is gone (the SDK's own code for it). */
export function connectionClosed(id: RequestId, reason: string): JSONRPCErrorResponse {
  return errorAnswer(id, ErrorCode.ConnectionClosed, reason);
}

const MetaParamsSchema = z.looseObject({
  _meta: z.looseObject({ progressToken: z.union([z.string(), z.number()]).optional() }).optional(),
});

export function progressTokenOf(request: JSONRPCRequest): ProgressToken | undefined {
  const parsed = MetaParamsSchema.safeParse(request.params ?? {});
  return parsed.success ? parsed.data._meta?.progressToken : undefined;
}

/** The request with its progress token replaced (tokens are only unique per client). */
export function withProgressToken(request: JSONRPCRequest, token: ProgressToken): JSONRPCRequest {
  const params = request.params ?? {};
  return { ...request, params: { ...params, _meta: { ...params._meta, progressToken: token } } };
}

/** The request with `meta` added to its params' `_meta` (keys already there win: the client's own). */
export function withMeta(request: JSONRPCRequest, meta: Record<string, unknown>): JSONRPCRequest {
  const params = request.params ?? {};
  return { ...request, params: { ...params, _meta: { ...meta, ...params._meta } } };
}

const UriParamsSchema = z.looseObject({ uri: z.string() });

export function uriOf(params: unknown): string | undefined {
  const parsed = UriParamsSchema.safeParse(params ?? {});
  return parsed.success ? parsed.data.uri : undefined;
}

const RequestIdParamsSchema = z.looseObject({ requestId: z.union([z.string(), z.number()]) });

/** The `requestId` of a notifications/cancelled. */
export function cancelledIdOf(params: unknown): RequestId | undefined {
  const parsed = RequestIdParamsSchema.safeParse(params ?? {});
  return parsed.success ? parsed.data.requestId : undefined;
}

const ProgressParamsSchema = z.looseObject({ progressToken: z.union([z.string(), z.number()]) });

export function notifiedProgressToken(params: unknown): ProgressToken | undefined {
  const parsed = ProgressParamsSchema.safeParse(params ?? {});
  return parsed.success ? parsed.data.progressToken : undefined;
}
