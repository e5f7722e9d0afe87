// The official release downloads of the pinned versions (versions.ts): tried before a Go build,
// because a download takes seconds where a build takes minutes. The real URLs are untested here
// (this machine has no internet); the mechanics are tested against a local server through
// CONNECTOR__RELEASE_MIRROR, which serves the same file names from one base URL.
import { VERSIONS } from './versions';
import { toolchainVariable } from './toolchain-env';

export interface Release {
  url: string;
  /** The file name a mirror serves it under. */
  asset: string;
  /** Path of the executable inside a .tar.gz; absent for a bare binary. */
  member?: string;
}

type Platform = { os: 'linux' | 'darwin'; arch: 'amd64' | 'arm64' };

/** The official release of `name` for this platform, or null when there is none to download. */
export function officialRelease(name: string, platform = currentPlatform()): Release | null {
  if (!platform) return null;
  const { os, arch } = platform;
  const v = VERSIONS;
  const gh = (repo: string, tag: string, asset: string) => `https://github.com/${repo}/releases/download/${tag}/${asset}`;
  switch (name) {
    case 'temporal': {
      const asset = `temporal_cli_${v.TEMPORAL_VERSION.slice(1)}_${os}_${arch}.tar.gz`;
      return { url: `https://temporal.download/cli/archive/${v.TEMPORAL_VERSION}?platform=${os}&arch=${arch}`, asset, member: 'temporal' };
    }
    case 'ferretdb': {
      // FerretDB v1 publishes bare Linux binaries only (its Taskfile's build-production task).
      if (os !== 'linux') return null;
      const asset = `ferretdb-linux-${arch}`;
      return { url: gh('FerretDB/FerretDB', v.FERRETDB_VERSION, asset), asset };
    }
    case 'etcd': {
      if (os !== 'linux') return null; // macOS releases are zip files
      const dir = `etcd-${v.ETCD_VERSION}-linux-${arch}`;
      return { url: gh('etcd-io/etcd', v.ETCD_VERSION, `${dir}.tar.gz`), asset: `${dir}.tar.gz`, member: `${dir}/etcd` };
    }
    case 'kwok':
    case 'kwokctl': {
      const asset = `${name}-${os}-${arch}`;
      return { url: gh('kubernetes-sigs/kwok', v.KWOK_VERSION, asset), asset };
    }
    case 'kube-apiserver':
    case 'kube-controller-manager':
    case 'kube-scheduler':
      // The control plane is released for Linux only.
      if (os !== 'linux') return null;
      return { url: `https://dl.k8s.io/release/${v.KUBE_VERSION}/bin/linux/${arch}/${name}`, asset: name };
    case 'helm': {
      const asset = `helm-${v.HELM_VERSION}-${os}-${arch}.tar.gz`;
      return { url: `https://get.helm.sh/${asset}`, asset, member: `${os}-${arch}/helm` };
    }
    default:
      return null;
  }
}

/** The release to fetch, honouring CONNECTOR__RELEASE_MIRROR (a base URL serving the assets). */
export function releaseFor(name: string, env: NodeJS.ProcessEnv = process.env): Release | null {
  const release = officialRelease(name);
  const mirror = toolchainVariable('CONNECTOR__RELEASE_MIRROR', env)?.replace(/\/+$/, '');
  if (!release || !mirror) return release;
  return { ...release, url: `${mirror}/${release.asset}` };
}

function currentPlatform(): Platform | null {
  const os = process.platform === 'linux' || process.platform === 'darwin' ? process.platform : null;
  const arch = process.arch === 'x64' ? 'amd64' : process.arch === 'arm64' ? 'arm64' : null;
  return os && arch ? { os, arch } : null;
}
