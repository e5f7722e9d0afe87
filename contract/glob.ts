// Glob patterns over tool names and callers: `*` any run of characters, `?` one; everything else
// literal. Matched without backtracking: the pattern is cut at its stars into literal segments
// (with `?` as a one-character wildcard), the first anchored at the start, the last at the end,
// and each one between them taken at its leftmost place after the one before. Leftmost is always
// right for a glob (a later place leaves less room, never more), so no choice is ever revisited:
// a match costs at most (name length + 1) × (pattern length + 1) character comparisons, linear in
// the name. A regular expression with `.*` per star backtracked instead: `*a` × 16 + `*c` against
// a 32-character name took 32 s (issue 37). Patterns are compiled once (lists are filtered on
// every tools/list).

/** The most `*` a pattern may hold (runs of stars count as one); the API refuses more with 422. */
export const MAX_GLOB_STARS = 8;

interface CompiledGlob {
  /** The literal runs between stars (empty at an end the pattern begins or ends with a star); `?` matches any one character. */
  segments: string[];
}

const compiled = new Map<string, CompiledGlob>();
const MAX_COMPILED = 10_000;

/** How many stars the pattern holds, consecutive stars counted once (they match what one does). */
export function globStars(pattern: string): number {
  return pattern.split(/\*+/).length - 1;
}

export function globMatches(pattern: string, value: string): boolean {
  return matchGlob(pattern, value).matched;
}

export const anyGlobMatches = (patterns: readonly string[], value: string): boolean => patterns.some((p) => globMatches(p, value));

/** The match and the character comparisons it took (the linear bound's witness in the tests). */
export function matchGlob(pattern: string, value: string): { matched: boolean; steps: number } {
  const glob = compile(pattern);
  const counter = { steps: 0 };
  return { matched: matches(glob, value, counter), steps: counter.steps };
}

function compile(pattern: string): CompiledGlob {
  let glob = compiled.get(pattern);
  if (!glob) {
    glob = { segments: pattern.split(/\*+/) };
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(pattern, glob);
  }
  return glob;
}

function matches(glob: CompiledGlob, value: string, counter: { steps: number }): boolean {
  const { segments } = glob;
  if (segments.length === 1) return segments[0]!.length === value.length && segmentAt(segments[0]!, value, 0, counter);
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  // Anchored ends first: the last segment owns the tail, so the middle ones must fit before it.
  if (first.length + last.length > value.length) return false;
  if (!segmentAt(first, value, 0, counter)) return false;
  const end = value.length - last.length;
  if (!segmentAt(last, value, end, counter)) return false;
  let from = first.length;
  for (let i = 1; i < segments.length - 1; i++) {
    const found = leftmost(segments[i]!, value, from, end, counter);
    if (found < 0) return false;
    from = found + segments[i]!.length;
  }
  return true;
}

/** The leftmost place at or after `from` where `segment` fits entirely before `end`; -1 if none. */
function leftmost(segment: string, value: string, from: number, end: number, counter: { steps: number }): number {
  for (let at = from; at + segment.length <= end; at++) {
    if (segmentAt(segment, value, at, counter)) return at;
  }
  return -1;
}

function segmentAt(segment: string, value: string, at: number, counter: { steps: number }): boolean {
  for (let i = 0; i < segment.length; i++) {
    counter.steps++;
    const c = segment.charCodeAt(i);
    if (c !== QUESTION && c !== value.charCodeAt(at + i)) return false;
  }
  return true;
}

const QUESTION = '?'.charCodeAt(0);
