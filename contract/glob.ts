// Glob patterns over tool names and callers: `*` any run of characters, `?` one; everything else
// literal. Compiled once per pattern (lists are filtered on every tools/list).
const compiled = new Map<string, RegExp>();
const MAX_COMPILED = 10_000;

export function globMatches(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) {
    const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${source}$`, 's');
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.test(value);
}

export const anyGlobMatches = (patterns: readonly string[], value: string): boolean => patterns.some((p) => globMatches(p, value));
