// The conformance suite's ten `tasks-*` server scenarios (the Tasks extension, SEP-2663), each run
// on its own against one URL (the extension's scenarios belong to no revision's suite).
import { runSuite, type SuiteResult } from './suite-cli';

export const TASKS_SCENARIOS = [
  'tasks-lifecycle', 'tasks-capability-negotiation', 'tasks-wire-fields', 'tasks-request-state-removal', 'tasks-mrtr-input',
  'tasks-request-headers', 'tasks-dispatch-and-envelope', 'tasks-status-notifications', 'tasks-required-task-error', 'tasks-mrtr-composition',
];

export async function tasksSuite(url: string): Promise<SuiteResult> {
  const scenarios = new Map<string, string[]>();
  for (const scenario of TASKS_SCENARIOS) {
    const result = await runSuite(['server', '--url', url, '--scenario', scenario]);
    for (const [name, failed] of result.scenarios) scenarios.set(name, failed);
  }
  return { scenarios, passed: new Set([...scenarios].filter(([, failed]) => failed.length === 0).map(([name]) => name)) };
}
