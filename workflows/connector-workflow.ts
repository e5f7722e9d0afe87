// One workflow per connector: the messages wired to the ConnectorManager, and its main loop.
import { setHandler } from '@temporalio/workflow';
import { ConnectorManager, type ConnectorWorkflowInput } from './connector-manager';
import {
  approvalRulesUpdate, callbackUpdate, connectUpdate, createdUpdate, deleteUpdate, disconnectUpdate, refreshUpdate,
  presetWithdrawnSignal, routeQuery, stepUpUpdate, upstreamRefusedUpdate, viewQuery,
} from './messages';

export type { ConnectorWorkflowInput } from './connector-manager';

export async function connectorWorkflow(input: ConnectorWorkflowInput): Promise<void> {
  const manager = new ConnectorManager(input);
  setHandler(viewQuery, () => manager.record());
  setHandler(routeQuery, () => manager.route());
  setHandler(createdUpdate, () => manager.created());
  setHandler(connectUpdate, (request) => manager.connect(request), { validator: (_request) => manager.validateCaller('connect') });
  setHandler(disconnectUpdate, (actor) => manager.disconnect(actor), { validator: (_actor) => manager.validateCaller('disconnect') });
  setHandler(approvalRulesUpdate, (input) => manager.setApprovalRules(input), { validator: (_input) => manager.validateRulesChange() });
  setHandler(deleteUpdate, (actor) => manager.delete(actor), { validator: (_actor) => manager.validateCaller('delete') });
  setHandler(callbackUpdate, (input) => manager.callback(input), { validator: (input) => manager.validateCallback(input) });
  setHandler(refreshUpdate, (report) => manager.refresh(report), { validator: (_report) => manager.validateRefresh() });
  setHandler(upstreamRefusedUpdate, (report) => manager.upstreamRefused(report));
  setHandler(stepUpUpdate, (request) => manager.stepUpAuthorization(request));
  setHandler(presetWithdrawnSignal, (input) => manager.presetWithdrawn(input));
  await manager.run();
}
