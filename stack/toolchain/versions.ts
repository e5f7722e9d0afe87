// The pinned versions of every server binary, for both ways of getting one: build.sh reads them
// from its environment (go-build.ts passes them) and releases.ts names the official downloads.
export const VERSIONS = {
  TEMPORAL_VERSION: 'v1.5.1',
  FERRETDB_VERSION: 'v1.24.2',
  ETCD_VERSION: 'v3.6.14',
  KWOK_VERSION: 'v0.8.0',
  KUBE_VERSION: 'v1.36.1',
  // k8s.io/kubernetes's staging modules are published as v0.<minor>.<patch>.
  KUBE_STAGING_VERSION: 'v0.36.1',
  HELM_VERSION: 'v3.22.0',
} as const;
