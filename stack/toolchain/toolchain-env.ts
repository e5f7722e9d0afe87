// The toolchain's own variables, read under their CONNECTOR__ names; the CONNECTOR_REGISTRY_
// names from before still work, with one warning per process (config/renamed-variables.ts).
import { createLogger } from '../../platform/logger';
import { warnOldNames, withCurrentNames } from '../../config/renamed-variables';

export type ToolchainVariable = 'CONNECTOR__CACHE' | 'CONNECTOR__DOWNLOAD' | 'CONNECTOR__DOWNLOAD_TIMEOUT_MS'
  | 'CONNECTOR__RELEASE_MIRROR' | 'CONNECTOR__INSTALL_PODMAN';

export function toolchainVariable(name: ToolchainVariable, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const current = withCurrentNames(env);
  warnOldNames(createLogger('toolchain'), current.oldNames);
  return current.env[name] || undefined;
}
