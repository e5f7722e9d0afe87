// The toolchain's own variables (stack/toolchain), named like the service's: CONNECTOR__X.

export type ToolchainVariable = 'CONNECTOR__CACHE' | 'CONNECTOR__DOWNLOAD' | 'CONNECTOR__DOWNLOAD_TIMEOUT_MS'
  | 'CONNECTOR__RELEASE_MIRROR' | 'CONNECTOR__INSTALL_PODMAN' | 'CONNECTOR__START_TIMEOUT_S';

export function toolchainVariable(name: ToolchainVariable, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[name] || undefined;
}
