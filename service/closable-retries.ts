// The Temporal client's own retries (transient gRPC failures, with backoff), safe to close under:
// a retry falls due on a timer, and when the connection was closed meanwhile (a process stopping
// while Temporal is unreachable: `npm start`'s Ctrl-C stops the dev server at the same moment)
// the SDK's interceptor creates its call on the shut-down channel, which throws from the timer and
// takes the process down ("Channel has been shut down"). Here that call fails instead, as
// cancelled, and the request that waited on it is answered with that.
import { Metadata, status as grpcStatus, type Interceptor } from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

const SHUT_DOWN = 'Channel has been shut down';
type Call = ReturnType<Parameters<Interceptor>[1]>;

export function closableRetries(): Interceptor {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) => retry(options, (callOptions) => {
    try {
      return nextCall(callOptions);
    } catch (err) {
      if ((err as Error)?.message !== SHUT_DOWN) throw err;
      return cancelledCall();
    }
  });
}

/** A call that never leaves: it ends, once started, with CANCELLED. */
function cancelledCall(): Call {
  return {
    start(_metadata, listener) {
      process.nextTick(() => listener?.onReceiveStatus?.({ code: grpcStatus.CANCELLED, details: 'the Temporal connection was closed', metadata: new Metadata() }));
    },
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
}
