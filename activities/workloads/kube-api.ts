// The Kubernetes API clients and the error handling every call shares: a 404 on delete or read
// means "already gone", a 409 on create means "already there", and any other failure becomes a
// short message naming the call (the library's own message carries whole response bodies).
import { ApiException, AppsV1Api, CoreV1Api, KubeConfig, NetworkingV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';

export interface KubeApis {
  apps: AppsV1Api;
  core: CoreV1Api;
  networking: NetworkingV1Api;
  rbac: RbacAuthorizationV1Api;
}

export function apisFrom(config: KubeConfig): KubeApis {
  return {
    apps: config.makeApiClient(AppsV1Api),
    core: config.makeApiClient(CoreV1Api),
    networking: config.makeApiClient(NetworkingV1Api),
    rbac: config.makeApiClient(RbacAuthorizationV1Api),
  };
}

/** `kubeconfig`: a file; without it, the usual loading (KUBECONFIG, ~/.kube/config, in-cluster). */
export function kubeApis(kubeconfig?: string): KubeApis {
  const config = new KubeConfig();
  // KUBECONFIG may list several files; the default loader merges them.
  if (kubeconfig && !kubeconfig.includes(':')) config.loadFromFile(kubeconfig);
  else config.loadFromDefault();
  return apisFrom(config);
}

export function statusOf(error: unknown): number | undefined {
  return error instanceof ApiException ? error.code : undefined;
}

/** The call's result, or undefined when the object does not exist. */
export async function unlessNotFound<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw kubeError(what, error);
  }
}

/** The call's result, or undefined when the object already exists. */
export async function unlessExists<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (statusOf(error) === 409) return undefined;
    throw kubeError(what, error);
  }
}

export async function kubeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw kubeError(what, error);
  }
}

export function kubeError(what: string, error: unknown): Error {
  if (!(error instanceof ApiException)) return error instanceof Error ? error : new Error(String(error));
  return new Error(`Kubernetes API: ${what} failed with ${error.code}: ${statusMessage(error.body)}`);
}

/** The message of a metav1.Status body, which never holds object data. */
function statusMessage(body: unknown): string {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return 'no status message';
    }
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'no status message';
}
