// The workflow bundle's entry: every workflow type the worker registers.
export { connectorWorkflow } from './connector-workflow';
export { registrySyncWorkflow } from './registry-sync';
export { toolTaskWorkflow } from './tool-task';
