// The values of server.json inputs (arguments, environment variables, headers): fixed values with
// their `{variable}` references filled in, or the name of what a person would have to supply.
import type { Argument, KeyValueInput } from './server-json';

/** A value, or what is missing for one (a required input nobody here can give). */
export type Resolved = { value: string } | { missing: string } | { absent: true };

const REFERENCE = /\{([A-Za-z0-9_-]+)\}/g;

/** The input's value with its variables filled from their own values or defaults. */
export function resolveInput(input: KeyValueInput | Argument, label: string): Resolved {
  const raw = input.value ?? input.default;
  if (raw === undefined) return input.isRequired ? { missing: label } : { absent: true };
  let missing: string | null = null;
  const value = raw.replace(REFERENCE, (whole, name: string) => {
    const variable = input.variables?.[name];
    // The spec leaves an unknown reference unchanged.
    if (!variable) return whole;
    const filled = variable.value ?? variable.default;
    if (filled === undefined) missing ??= `${label} (its variable ${name})`;
    return filled ?? whole;
  });
  return missing ? { missing } : { value };
}

/** True when a text still holds a `{reference}` after resolution (a value the registry left to the user). */
export function hasReference(text: string): boolean {
  return new RegExp(REFERENCE.source).test(text);
}

const FLAG = /^-{1,2}[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The argv elements of a list of arguments (never a shell line: each element is passed as it is).
 * Throws with a reason on a flag that is not a plain flag; returns what is missing otherwise.
 */
export function argvOf(args: readonly Argument[] | undefined, where: string): { argv: string[]; missing: string[] } {
  const argv: string[] = [];
  const missing: string[] = [];
  for (const arg of args ?? []) {
    const label = `${where} ${arg.type === 'named' ? arg.name : arg.valueHint ?? 'argument'}`;
    if (arg.type === 'named' && !FLAG.test(arg.name ?? '')) throw new InputRefused(`${where} has a flag that is not a plain --flag`);
    const resolved = resolveInput(arg, label);
    if ('missing' in resolved) missing.push(resolved.missing);
    else if ('value' in resolved) argv.push(...(arg.type === 'named' ? [arg.name!, resolved.value] : [resolved.value]));
  }
  return { argv, missing };
}

export class InputRefused extends Error {}
