// `bundle-workflows-main.ts <out file>`: writes the workflow bundle (bundle-workflows.ts).
import { writeFile } from 'node:fs/promises';
import { bundleWorkflows } from './bundle-workflows';

await writeFile(process.argv[2]!, await bundleWorkflows());
