import test from 'ava';
import { describeBuildPlan } from '../../stack/toolchain/build-plan';

test('the build plan names each build with its expected cold time, the total, and what a download would have avoided', (t) => {
  const lines = describeBuildPlan([
    { target: 'ferretdb', binaries: ['ferretdb'], why: 'built on purpose, for its patch', downloadable: false },
    { target: 'kube', binaries: ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'], why: 'no download (fetch failed)', downloadable: true },
    { target: 'etcd', binaries: ['etcd'], why: 'no download (fetch failed)', downloadable: true },
  ]);
  t.is(lines[0], 'toolchain: 3 Go builds to run, one at a time: about 10 min on 2 quiet cores, up to 38 min on 2 busy ones (once only, then cached):');
  t.regex(lines[1]!, /^ {2}ferretdb +~65 s–6 min +ferretdb: built on purpose/);
  t.regex(lines[2]!, /^ {2}kube +~8–29 min +kube-apiserver, kube-controller-manager, kube-scheduler: no download/);
  t.regex(lines.at(-1)!, /a release download would have avoided kube, etcd \(about 9–32 min of it\)/);
  t.deepEqual(describeBuildPlan([]), [], 'nothing to build, nothing said');
});
