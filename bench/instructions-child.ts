/**
 * Child-process entry of bench/instructions.ts, run under valgrind's callgrind: loads the engine
 * with every per-call variant, warms each up, then runs the variant each `run` message names over
 * the references it gives and answers `ran`; `collect` runs a full garbage collection outside the
 * counted span. Between runs a timer keeps the event loop turning, so
 * valgrind's gdbserver takes the parent's zero and dump commands without waiting for the process.
 * Argument: JSON InstructionJob.
 */
import './env';

import { CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, loadEngine } from '../test/harness/engine';
import type { SandboxInfo } from '../sandbox';
import { referenceItems, runChecked } from './engine';
import { collectGarbage } from './env';
import { type EngineVariant, variantWorkflow } from './variants';

export interface InstructionJob {
	info: SandboxInfo;
	variants: EngineVariant[];
	warmUp: string[];
}

export type ChildMessage = { type: 'run'; variant: EngineVariant; references: string[] } | { type: 'collect' } | { type: 'exit' };

async function main(): Promise<void> {
	const job = JSON.parse(process.argv[2]) as InstructionJob;
	const engine = await loadEngine(['n8n-nodes-base.httpRequest']);
	engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(job.info));
	const workflows = new Map(job.variants.map((variant) => [variant, variantWorkflow(engine, job.info, variant)]));
	for (const [workflow, lastNode] of workflows.values()) await runChecked(engine, workflow, lastNode, { items: referenceItems(job.warmUp) });
	collectGarbage();

	let idle: NodeJS.Timeout | undefined = setInterval(() => {}, 1);
	process.on('message', (message: ChildMessage) => {
		if (message.type === 'exit') process.exit(0);
		if (message.type === 'collect') {
			collectGarbage();
			process.send?.({ type: 'collected' });
			return;
		}
		clearInterval(idle);
		const [workflow, lastNode] = workflows.get(message.variant)!;
		runChecked(engine, workflow, lastNode, { items: referenceItems(message.references) }).then(
			() => {
				idle = setInterval(() => {}, 1);
				process.send?.({ type: 'ran' });
			},
			(error: unknown) => {
				process.stderr.write(`bench instructions child: ${error instanceof Error ? error.stack : String(error)}\n`);
				process.exit(1);
			},
		);
	});
	process.send?.({ type: 'ready' });
}

main().catch((error: unknown) => {
	process.stderr.write(`bench instructions child: ${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});
