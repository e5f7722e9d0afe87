// Environment variables a registry entry may not set. A server's own settings (API endpoints, log
// levels, units) are its business; these instead steer the programs around it: the dynamic
// loader, the interpreters, the package managers npx and uvx call, the container tools, the
// proxies and certificate authorities every fetch goes through, where configuration and shell
// start-up files are read. One of them turns "run left-pad 1.3.0" into "run whatever another
// registry serves" (issue 37: npm_config_registry) or into code loaded before the server's own.
// Names are compared without case: npm reads npm_config_* in any case, and the proxy variables
// are read in both.
export interface SteeringRule {
  pattern: RegExp;
  /** Why the name is refused, as the sync status and the presets list say it. */
  reason: string;
}

export const STEERING_VARIABLES: readonly SteeringRule[] = [
  { pattern: /^(LD_|DYLD_)/i, reason: 'the dynamic loader reads it (LD_PRELOAD and LD_AUDIT load code into every process)' },
  { pattern: /^(GLIBC_TUNABLES|GCONV_PATH|LOCPATH|MALLOC_)/i, reason: 'the C library reads it (GCONV_PATH loads modules; GLIBC_TUNABLES had a loader exploit)' },
  { pattern: /^NODE_(?!ENV$)/i, reason: 'Node.js reads it (NODE_OPTIONS --require, NODE_PATH, NODE_EXTRA_CA_CERTS)' },
  { pattern: /^(npm_|NPX_|COREPACK_|YARN_|PNPM_|BUN_|DENO_)/i, reason: 'a JavaScript package manager reads it (npm_config_registry changes where npx fetches the package)' },
  { pattern: /^(PIP_|PIPX_|UV_|POETRY_|CONDA_|VIRTUAL_ENV$)/i, reason: 'a Python package manager reads it (PIP_INDEX_URL, UV_INDEX_URL change where uvx fetches the package)' },
  { pattern: /^PYTHON/i, reason: 'the Python interpreter reads it (PYTHONPATH, PYTHONSTARTUP, PYTHONHOME)' },
  { pattern: /^(PERL5?LIB|PERL5?OPT|RUBYOPT|RUBYLIB|GEM_HOME|GEM_PATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH)$/i, reason: 'an interpreter reads it to load code' },
  { pattern: /^(PATH|HOME|SHELL|ENV|BASH_ENV|IFS|CDPATH|TMPDIR|XDG_.*|BASH_FUNC_.*)$/i, reason: 'it decides where programs, configuration files and shell start-up files are found' },
  { pattern: /^(DOCKER|CONTAINER|CONTAINERS|PODMAN|BUILDAH|KUBE|KUBECONFIG|REGISTRY_AUTH_FILE)/i, reason: 'a container engine or cluster client reads it' },
  { pattern: /^(HTTPS?_PROXY|ALL_PROXY|NO_PROXY|FTP_PROXY)$/i, reason: 'it sends the package fetch and the server\'s requests through another host' },
  { pattern: /^(SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|GIT_.*)$/i, reason: 'it changes which certificate authorities are trusted, or how git fetches dependencies' },
];

/** Why a registry entry may not set this variable, or null when it may. */
export function steeringReason(name: string): string | null {
  return STEERING_VARIABLES.find((rule) => rule.pattern.test(name))?.reason ?? null;
}

/** Each variable of the entry's packages that it may not set, with why (the sync status lists them). */
export function steeringVariablesOf(packages: readonly { environmentVariables?: readonly { name: string }[] }[] | undefined): string[] {
  return (packages ?? []).flatMap((pkg) => (pkg.environmentVariables ?? []).flatMap((variable) => {
    const reason = steeringReason(variable.name);
    return reason ? [`its environment variable ${variable.name} is refused: ${reason}`] : [];
  }));
}
