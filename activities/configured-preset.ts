// A connector's preset as this worker is configured now. Connectors name their preset by URL, and
// the worker holds the presets (their credentials and env values never reach history), so a
// deployment that has since dropped the preset cannot serve the connector: a permanent failure
// that names the preset, which the workflow records as the reason it is disconnected.
import { ApplicationFailure } from '@temporalio/common';
import { displayUrl } from '../contract/display-url';
import { FAILURE } from '../contract/failures';
import { findPreset } from '../catalog/presets';
import type { Preset } from '../contract/schemas';

export function configuredPreset(presets: readonly Preset[], url: string): Preset {
  const preset = findPreset(url, presets);
  if (preset) return preset;
  throw ApplicationFailure.create({
    type: FAILURE.unprocessable,
    nonRetryable: true,
    message: `the preset ${displayUrl(url)} is no longer configured (CONNECTOR__PRESETS); connectors made from it cannot connect`,
  });
}
