import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { INode, IConnections } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../../sandbox';
import {
	buildWorkflow,
	CREDENTIAL_TYPE,
	credentialFromSandbox,
	type Engine,
	loadEngine,
	REPO_ROOT,
	runWorkflow,
} from '../harness/engine';
import { findSecrets } from '../harness/secrets';

interface ExampleWorkflow {
	name: string;
	nodes: INode[];
	connections: IConnections;
}

function example(file: string): ExampleWorkflow {
	return JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8')) as ExampleWorkflow;
}

function exampleCredentialId(workflow: ExampleWorkflow): string {
	const withCredential = workflow.nodes.find((node) => node.credentials?.[CREDENTIAL_TYPE]);
	return withCredential!.credentials![CREDENTIAL_TYPE].id!;
}

describe('example workflows run as shipped', () => {
	let engine: Engine;
	let sandbox: Sandbox;

	beforeAll(async () => {
		engine = await loadEngine([
			'n8n-nodes-base.set',
			'n8n-nodes-base.splitOut',
			'n8n-nodes-base.merge',
			'n8n-nodes-base.summarize',
			'n8n-nodes-base.scheduleTrigger',
		]);
		sandbox = await startSandbox({ finalizeAfterMs: null });
	});

	afterAll(async () => sandbox?.close());

	it('pays a list of 60 beneficiaries once, paced to the velocity limit, even when the whole workflow is run again', async () => {
		const definition = example('pay-beneficiaries.json');
		// A velocity window made small (10 payouts per rolling second) so the paced run stays short.
		await sandbox.control.updateClient(sandbox.info.clientId, { limits: { velocityLimit: 10, velocityWindowSeconds: 1 } });
		const credential = credentialFromSandbox(sandbox.info, { velocityLimit: 10, velocityWindowSeconds: 1 });
		engine.credentials.set(exampleCredentialId(definition), CREDENTIAL_TYPE, credential);
		const workflow = buildWorkflow(engine, definition);

		const first = await runWorkflow(engine, workflow);
		const again = await runWorkflow(engine, workflow);

		const paid = first.output('Send payout');
		expect(first.error()).toBeUndefined();
		expect(paid).toHaveLength(60);
		for (const item of paid) expect(item.json).toMatchObject({ success: true, reference: expect.any(String) });
		expect(new Set(paid.map((item) => item.json.reference)).size).toBe(60);
		expect(again.output('Send payout').map((item) => item.json.reference)).toEqual(
			paid.map((item) => item.json.reference),
		);
		const payouts = (await sandbox.control.ledger()).payouts;
		expect(payouts).toHaveLength(60);
		expect((await sandbox.control.counters()).rejected).toBe(0);
		expect(findSecrets([first.run, again.run], { pin: sandbox.info.pin, clientSecret: sandbox.info.clientSecret, hmacSecret: sandbox.info.hmacSecret })).toEqual([]);
	});

	it("totals yesterday's charges and payouts per type and status", async () => {
		const definition = example('daily-reconciliation.json');
		engine.credentials.set(exampleCredentialId(definition), CREDENTIAL_TYPE, credentialFromSandbox(sandbox.info));
		const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
		yesterday.setUTCHours(12, 0, 0, 0);
		await sandbox.control.seed({ resource: 'charge', count: 7, status: 'COMPLETED', createdAtFrom: yesterday.toISOString(), createdAtTo: yesterday.toISOString() });
		await sandbox.control.seed({ resource: 'payout', count: 4, status: 'FAILED', createdAtFrom: yesterday.toISOString(), createdAtTo: yesterday.toISOString() });

		// Togo's time zone is UTC, so "yesterday" of the workflow is yesterday in UTC.
		const workflow = buildWorkflow(engine, { ...definition, timezone: 'Africa/Lome' });
		const result = await runWorkflow(engine, workflow);

		expect(result.error()).toBeUndefined();
		const totals = result.output('Totals per type and status').map((item) => item.json);
		expect(totals).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ type: 'charge', status: 'COMPLETED', count_reference: 7 }),
				expect.objectContaining({ type: 'payout', status: 'FAILED', count_reference: 4 }),
			]),
		);
	});

	it('ships a fulfilment workflow whose trigger listens for completed charges only', () => {
		const definition = example('fulfil-order-on-charge.json');
		const trigger = definition.nodes.find((node) => node.type === 'n8n-nodes-money.moneyTrigger')!;
		expect(trigger.parameters).toMatchObject({ resources: ['charge'], statuses: ['COMPLETED'] });
		expect(definition.connections[trigger.name]).toBeDefined();
	});
});
