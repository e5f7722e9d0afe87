// The pod status readers, on status objects shaped as the kubelet reports them (under kwok no
// container ever runs or ends, so the ending cases are shown here on hand-written statuses).
import test from 'ava';
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { isPodReady, pendingHint, serverExit } from '../../activities/workloads/kube-pod-status';

const pod = (server: Partial<V1ContainerStatus>, extra: Partial<V1Pod['status']> = {}): V1Pod => ({
  status: { containerStatuses: [{ name: 'mcp-server', image: 'x', imageID: '', ready: false, restartCount: 0, ...server }], ...extra },
});

test('serverExit: a terminated server, with the code, the signal or a telling reason', (t) => {
  t.is(serverExit(pod({ state: { terminated: { exitCode: 1, reason: 'Error' } } })), 'stdio server exited with code 1');
  t.is(serverExit(pod({ state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } })), 'stdio server exited with code 137 (OOMKilled)');
  t.is(serverExit(pod({ state: { terminated: { exitCode: 0, signal: 9 } } })), 'stdio server was killed by signal 9');
});

test('serverExit: a server restarted after an ending still counts as ended; a running one does not', (t) => {
  const restarted = pod({ restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 2 } } });
  t.is(serverExit(restarted), 'stdio server exited with code 2');
  t.is(serverExit(pod({ state: { running: {} } })), undefined);
  t.is(serverExit({ status: {} }), undefined);
});

test('isPodReady: the Ready condition, unless the pod is being deleted', (t) => {
  const ready: V1Pod = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
  t.true(isPodReady(ready));
  t.false(isPodReady({ ...ready, metadata: { deletionTimestamp: new Date() } }));
  t.false(isPodReady({ status: { conditions: [{ type: 'Ready', status: 'False' }] } }));
});

test('pendingHint: unscheduled pods and waiting containers', (t) => {
  t.is(pendingHint(undefined), 'no pod was created');
  t.is(pendingHint({ status: { conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] } }), 'pod not scheduled: Unschedulable');
  t.is(pendingHint(pod({ state: { waiting: { reason: 'ImagePullBackOff' } } })), 'container mcp-server: ImagePullBackOff');
  t.is(pendingHint(pod({ state: { running: {} } })), undefined);
});
