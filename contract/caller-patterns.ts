// The patterns a policy is written in: globs over tool names, and patterns naming callers. Apart
// from the toolset and approval shapes so that each may use the other's without an import cycle.
import { z } from 'zod';
import { MAX_GLOB_STARS, globStars } from './glob';

export const starsWithinCap = (pattern: string) => globStars(pattern) <= MAX_GLOB_STARS;
export const STARS_MESSAGE = `may hold at most ${MAX_GLOB_STARS} * (runs of * count as one)`;
export const GlobSchema = z.string().min(1).max(256).refine(starsWithinCap, STARS_MESSAGE);

/** Callers: `key:<subject>`, `oidc:<subject>`, `role:<role>`; `*` and `?` glob within each. */
export const CallerPatternSchema = z.string().min(1).max(256).regex(/^(key|oidc|role):.+$/, 'must be key:<subject>, oidc:<subject> or role:<role> (globs allowed)')
  .refine(starsWithinCap, STARS_MESSAGE);
