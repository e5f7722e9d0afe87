// Kubernetes resource quantities for CPU and memory, in the plain forms people write ("250m",
// "1.5", "512Mi", "1G"): validated at start-up so that a preset cannot make the API server refuse
// a Deployment at connect time. Exponent forms ("1e3") are not accepted.
export const CPU_QUANTITY = /^(\d+(?:\.\d+)?)(m?)$/;
export const MEMORY_QUANTITY = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

const MEMORY_FACTOR: Record<string, number> = {
  '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** Cores; NaN for anything CPU_QUANTITY refuses. */
export function cpuCores(quantity: string): number {
  const match = CPU_QUANTITY.exec(quantity);
  if (!match) return Number.NaN;
  return Number(match[1]) / (match[2] === 'm' ? 1000 : 1);
}

/** Bytes; NaN for anything MEMORY_QUANTITY refuses. */
export function memoryBytes(quantity: string): number {
  const match = MEMORY_QUANTITY.exec(quantity);
  if (!match) return Number.NaN;
  return Number(match[1]) * MEMORY_FACTOR[match[2] ?? '']!;
}

export type ResourceName = 'cpu' | 'memory';

export function quantityValue(resource: ResourceName, quantity: string): number {
  return resource === 'cpu' ? cpuCores(quantity) : memoryBytes(quantity);
}
