// The proxy's source of truth: a query of the connector's workflow ("route"), whose answer
// carries the sealed token (and a managed workload's sealed gateway secret); they are opened
// here, in memory, and never written anywhere. What the
// proxy learns from upstream answers goes back to the same workflow: a refused token (the
// refreshToken Update), a refusal no refresh mends (the upstreamRefused Update) and a request for
// more scope (the stepUpAuthorization Update). The sealed token travels back as it came, so the workflow can tell whether the
// token reported is still its current one.
import type { Client } from '@temporalio/client';
import { isWorkflowGone } from '../platform/workflow-gone';
import { secretContext, type Ciphertext, type SecretBox } from '../platform/secret-box';
import { GATEWAY_SECRET_FIELD } from '../contract/gateway-secret';
import { DPOP_KEY_PURPOSE } from '../contract/dpop-key';
import { openDpopKey } from '../platform/dpop-proof';
import { openHeaders } from '../platform/upstream-headers';
import { connectorWorkflowId, refreshUpdate, routeQuery, stepUpUpdate, upstreamRefusedUpdate, type RouteView } from '../workflows/messages';
import { isConnectorId } from '../contract/connector-id';
import type { Route, RouteSource } from './route';

export function workflowRoutes(temporal: Client, secrets: SecretBox): RouteSource {
  const handle = (connectorId: string) => temporal.workflow.getHandle(connectorWorkflowId(connectorId));

  function toRoute(connectorId: string, view: RouteView): Route {
    const { owner } = view;
    if (view.state === 'deleting') return { kind: 'not_found' };
    if (view.state !== 'connected' || !view.target) {
      return { kind: 'not_connected', state: view.state, owner, authorizationUrl: view.authorizationUrl, ...(view.needs ? { needs: view.needs } : {}) };
    }
    const managed = view.managed;
    const { transport } = view;
    const approvals = view.approvalRules?.length ? { approvals: view.approvalRules } : {};
    const gateway = view.gatewaySecret ? { gatewaySecret: secrets.open(view.gatewaySecret, secretContext(connectorId, GATEWAY_SECRET_FIELD)) } : {};
    const headers = view.headers?.length ? { headers: openHeaders(secrets, connectorId, view.headers) } : {};
    if (!view.token) return { kind: 'connected', target: view.target, owner, managed, ...gateway, ...headers, ...(transport ? { transport } : {}), ...approvals };
    const token = secrets.open(view.token, secretContext(connectorId, 'access_token'));
    // Imported once per route: the cached route signs every request's proof with it.
    const dpop = view.dpopKey ? { dpop: openDpopKey(secrets.open(view.dpopKey, secretContext(connectorId, DPOP_KEY_PURPOSE))) } : {};
    return { kind: 'connected', target: view.target, owner, managed, token, sealedToken: view.token, ...dpop, ...gateway, ...headers, ...(transport ? { transport } : {}), ...approvals };
  }

  return {
    async get(connectorId) {
      if (!isConnectorId(connectorId)) return { kind: 'not_found' };
      let view;
      try {
        view = await handle(connectorId).query(routeQuery);
      } catch (err) {
        if (isWorkflowGone(err)) return { kind: 'not_found' };
        throw err;
      }
      return toRoute(connectorId, view);
    },
    // The workflow refreshes once for all reports about the same token, and rejects (validator)
    // when the connector is not connected or holds no refresh token.
    async refresh(connectorId, sealedToken) {
      const view = await handle(connectorId).executeUpdate(refreshUpdate, { args: [{ usedToken: sealedToken as Ciphertext }] });
      return toRoute(connectorId, view);
    },
    async refused(connectorId, report) {
      const view = await handle(connectorId).executeUpdate(upstreamRefusedUpdate, {
        args: [{ usedToken: report.sealedToken as Ciphertext | null, status: report.status, challenge: report.challenge }],
      });
      return toRoute(connectorId, view);
    },
    // The workflow reuses a step-up on offer that covers the scopes; the proxy shares one call per token and scope set.
    async stepUp(connectorId, report) {
      const answer = await handle(connectorId).executeUpdate(stepUpUpdate, {
        args: [{ usedToken: report.sealedToken as Ciphertext, scope: report.scope, challenge: report.challenge }],
      });
      return { authorizationUrl: answer.authorizationUrl, reason: answer.reason, stale: answer.stale === true };
    },
  };
}
