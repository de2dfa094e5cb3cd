/**
 * Child-process entry of bench/profile.ts, run under `node --cpu-prof`: one variant of the
 * per-call comparison over the given references, after a warm-up, then exit (which writes the
 * profile). Argument: JSON ProfileJob.
 */
import './env';

import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine } from '../test/harness/engine';
import type { SandboxInfo } from '../sandbox';
import { createWebhookBench } from './figures/webhook';
import { referenceItems, runChecked } from './engine';
import { type EngineVariant, variantWorkflow } from './variants';

export interface ProfileJob {
	info: SandboxInfo;
	variant: EngineVariant | 'webhook';
	references: string[];
}

async function main(): Promise<void> {
	const job = JSON.parse(process.argv[2]) as ProfileJob;
	const engine = await loadEngine(['n8n-nodes-base.httpRequest']);
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(job.info));
	if (job.variant === 'webhook') {
		const bench = await createWebhookBench(engine, job.info.webhookSecret, { type: 'charge', amount: { value: 1500, currency: 'XOF' } });
		await bench.throughTrigger(bench.deliveries(500));
		const deliveries = bench.deliveries(job.references.length);
		const windowStartUs = Number(process.hrtime.bigint() / 1000n);
		const usPerDelivery = await bench.throughTrigger(deliveries);
		const windowEndUs = Number(process.hrtime.bigint() / 1000n);
		process.send?.({ type: 'done', msPerCall: usPerDelivery / 1000, windowStartUs, windowEndUs }, () => process.exit(0));
		return;
	}
	const [workflow, lastNode] = variantWorkflow(engine, job.info, job.variant);
	const items = referenceItems(job.references);
	await runChecked(engine, workflow, lastNode, { items: items.slice(0, 200) });
	// The profile's timestamps are microseconds on the monotonic clock process.hrtime reads.
	const windowStartUs = Number(process.hrtime.bigint() / 1000n);
	const started = performance.now();
	await runChecked(engine, workflow, lastNode, { items });
	const elapsed = performance.now() - started;
	const windowEndUs = Number(process.hrtime.bigint() / 1000n);
	process.send?.({ type: 'done', msPerCall: elapsed / items.length, windowStartUs, windowEndUs }, () => process.exit(0));
}

main().catch((error: unknown) => {
	process.stderr.write(`bench profile child: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
