// The answers a test stack's API gave that their operation does not declare (api/declared-status.ts
// logs each as a warning): a test file that drives the API checks there are none once it is done.
import { readFileSync } from 'node:fs';
import { UNDECLARED_ANSWER_MESSAGE } from '../../api/declared-status';

export function undeclaredAnswers(logFile: string): string[] {
  return readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes(UNDECLARED_ANSWER_MESSAGE));
}
