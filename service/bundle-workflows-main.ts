// `bundle-workflows-main.ts <out file> traced|plain`: writes that workflow bundle (bundle-workflows.ts).
import { writeFile } from 'node:fs/promises';
import { bundleWorkflows } from './bundle-workflows';

await writeFile(process.argv[2]!, await bundleWorkflows(process.argv[3] === 'traced'));
