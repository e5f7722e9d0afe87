// The tests of the local sandbox (uids of their own in bubblewrap's namespaces) and of egress
// networks (slirp4netns, nftables) need root and those Debian packages (npm test's toolchain
// installs them). Where they are missing the tests are skipped, loudly; under CI or as root, where
// they are expected to run, the missing part fails the file instead.
import type { UidRange } from '../../../config/config';
import { EgressNetworks } from '../../../activities/workloads/egress-network';
import { checkEgress, checkSandbox } from '../../../activities/workloads/sandbox-check';
import { standInFor, uidSwitchingAvailable } from '../../helpers/uid-isolation-gate';

/** True when the file's tests can run; otherwise one test stands for them, skipped or failing. */
export async function sandboxAvailable(file: string, title: string, range: UidRange, options: { egress?: boolean } = {}): Promise<boolean> {
  if (!uidSwitchingAvailable(file, title, range)) return false;
  const whyNot = (await checkSandbox(range.first)) ?? (options.egress ? await checkEgress(new EgressNetworks()) : null);
  if (whyNot === null) return true;
  standInFor(file, title, whyNot);
  return false;
}
