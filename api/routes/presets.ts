import { publicPreset, type StdioRuntimeKind } from '../../core/presets';
import type { Preset } from '../../core/schemas';
import type { Handler } from '../router';

/** `runtime` is asked once, at the first request: finding a container engine takes a process start. */
export function presetHandlers(presets: readonly Preset[], runtime: () => Promise<StdioRuntimeKind>): { listPresets: Handler<'listPresets'> } {
  let body: Promise<{ items: Array<ReturnType<typeof publicPreset>> }> | undefined;
  return {
    async listPresets(ctx) {
      body ??= runtime().then((kind) => ({ items: presets.map((p) => publicPreset(p, kind)) }));
      ctx.body = await body;
    },
  };
}
